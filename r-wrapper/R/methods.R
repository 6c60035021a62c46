# print() and summary() of dppcapy results: the Python summary (statsmodels layout:
# header facts, body tables, numbered notes), and the privacy ledger.

#' Summaries and printing of dppcapy results
#'
#' `summary()` returns the same header and tables as the Python result's `summary()`
#' (method, mechanism, eps, delta, calibration, neighbouring relation, n, p, k, seed;
#' then the body tables and notes). `print()` of a [dp_pc_dir()] result shows the matrix,
#' as 'dppca' returns it, plus a one-line privacy footer; `print()` of scree and score
#' results shows the summary. The R structure itself is unchanged: use `unclass()`,
#' `as.matrix()` or `str()` to see it raw.
#'
#' @param x,object A result of [dp_pc_dir()], [dp_scree()], [dp_score()] or
#'   [dp_score_group()], or a summary.
#' @param ... Unused.
#' @return `summary()`: an object of class `dppca_summary` (the text, one string);
#'   `print()`: `x`, invisibly.
#' @examples
#' if (dppca_available()) {
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, eps = 1, delta = 1e-5, seed = 1)
#'   V            # the matrix and a privacy footer
#'   summary(V)   # the full summary
#' }
#' @name dppca-summary
NULL

#' @rdname dppca-summary
#' @export
summary.dppca_directions <- function(object, ...) .summary_of(object)

#' @rdname dppca-summary
#' @export
summary.dppca_scree <- function(object, ...) .summary_of(object)

#' @rdname dppca-summary
#' @export
summary.dppca_score <- function(object, ...) .summary_of(object)

#' @rdname dppca-summary
#' @export
print.dppca_summary <- function(x, ...) {
  cat(x, sep = "\n")
  invisible(x)
}

#' @rdname dppca-summary
#' @export
print.dppca_directions <- function(x, ...) {
  print(as.matrix(x), ...)
  cat(.privacy_footer(x), "\n", sep = "")
  invisible(x)
}

# One line: the guarantee of a directions result, or that it is NON-PRIVATE, and the path with
# its estimand (the rank path estimates the latent Gaussian-copula correlation's eigenvectors,
# not the covariance's).
.privacy_footer <- function(x) {
  ledger <- attr(x, "ledger", exact = TRUE)
  rank <- .is_rank_path(x)
  if (is.null(ledger)) {
    what <- if (rank) "rank-path directions (sample latent Gaussian-copula correlation)" else
      "directions (sample covariance)"
    return(sprintf("<NON-PRIVATE %s; summary() for details>", what))
  }
  budget <- attr(ledger, "budget")
  method <- attr(x, "method")
  what <- if (rank) "rank-path directions (latent Gaussian-copula correlation)" else
    if (identical(method, "gdppca")) "g-DPPCA directions" else paste(method, "directions")
  sprintf("<(eps = %s, delta = %s)-DP %s, %s noise; summary() for details, dp_ledger() for the releases>",
          format(budget[["eps"]]), format(budget[["delta"]]), what,
          # a release inside a Gaussian-DP group names its share of the group; the kind of
          # noise is the same for every share
          sub(", GDP share.*$", "", utils::tail(ledger$mechanism, 1)))
}

# Whether a directions result comes from the rank path (standardize = "rank"): its method is
# "rank" when private; a NON-PRIVATE one names the latent copula correlation as its target.
.is_rank_path <- function(x) {
  if (identical(attr(x, "method"), "rank")) return(TRUE)
  summary <- attr(x, "summary", exact = TRUE)
  !is.null(summary) && any(grepl("Target:\\s+latent copula correlation", summary))
}

#' @rdname dppca-summary
#' @export
print.dppca_scree <- function(x, ...) .print_result(x)

#' @rdname dppca-summary
#' @export
print.dppca_score <- function(x, ...) .print_result(x)

.summary_of <- function(object) structure(attr(object, "summary"), class = "dppca_summary")

.print_result <- function(x) {
  print(.summary_of(x))
  invisible(x)
}

#' The privacy ledger of a result
#'
#' Every private number of a dppcapy result comes from one of the releases listed on
#' its ledger: what was released, the mechanism, its sensitivity (and norm), the noise
#' scale and the (eps, delta) it spent. The releases compose: their total is the budget
#' the call was given, never more. Neighbouring datasets differ in one row: replaced
#' (`neighbouring = "replace"`, the default; n public), or added or removed
#' (`neighbouring = "add_remove"`; n private, released first as a noisy count). The
#' `missing =` policy's releases (the private column medians) are on it too, first.
#'
#' @param x A result of [dp_pc_dir()], [dp_scree()], [dp_score()] or [dp_score_group()].
#' @return A data frame of class `dppca_ledger` (columns `step`, `mechanism`,
#'   `sensitivity`, `norm`, `noise_scale`, `eps`, `delta`; attributes `budget`, `spent`,
#'   `neighbouring` and, for data in memory, `missing`: the call's `missing =` policy, e.g.
#'   `"pairwise present (auto)"`), a named list of them (one per method) for [dp_scree()], or `NULL`
#'   for a non-private result.
#' @examples
#' if (dppca_available()) {
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, g_dppca = TRUE, eps = 1, delta = 1e-5, seed = 1)
#'   dp_ledger(V)
#' }
#' @export
dp_ledger <- function(x) attr(x, "ledger", exact = TRUE)

#' @rdname dp_ledger
#' @param ... Passed to [print.data.frame()].
#' @export
print.dppca_ledger <- function(x, ...) {
  budget <- attr(x, "budget")
  spent <- attr(x, "spent")
  cat(sprintf("Privacy ledger: budget eps = %.4g, delta = %.4g; spent eps = %.4g, delta = %.4g\n",
              budget[["eps"]], budget[["delta"]], spent[["eps"]], spent[["delta"]]))
  cat("Neighbouring datasets:", attr(x, "neighbouring"), "\n")
  if (!is.null(attr(x, "missing"))) cat("Missing values:", attr(x, "missing"), "\n")
  print(structure(unclass(x)[names(x)], class = "data.frame", row.names = attr(x, "row.names")), ...)
  invisible(x)
}
