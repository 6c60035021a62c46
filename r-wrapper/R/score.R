#' Private histograms of principal component scores
#'
#' Projects the data on two principal component directions, builds a private square
#' frame around the scores (smooth-sensitivity medians and a private 0.99 radius
#' quantile) and releases 2-D histograms on an equal-width grid: additive Gaussian
#' (`"add"`) and/or sparse thresholded Laplace (`"sparse"`). Same arguments and return
#' structure as `dppca::dp_score()`; computed by the Python package 'dppca'.
#'
#' Differences from 'dppca', each for privacy: scores are centred at the private frame
#' centre (not the sample mean), asking for both methods splits the histogram budget, and
#' the whole call is private only with `g_dppca = TRUE` (with `FALSE` the directions are
#' the sample covariance's, as in 'dppca'; the summary says so).
#'
#' @inheritParams dp_pc_dir
#' @param X Numeric matrix or data frame (n x p), n >= 2, p >= 2.
#' @param eps,delta Total privacy budget of the call: `eps > 0`, `0 < delta < 1`.
#' @param bins Number of bins along x and y (one or two positive integers). `NULL`: a
#'   default from public quantities (n, eps).
#' @param method `"add"`, `"sparse"` or both (the default).
#' @param axes Two distinct principal components to plot, e.g. `c(1, 2)`.
#' @param nonprivate Logical. `FALSE` (the default): the result holds private numbers
#'   only (no `score` matrix, no `nonprivate` histogram, no exact group sizes). `TRUE`:
#'   also return the NON-PRIVATE references, giving 'dppca''s full structure: `score`
#'   (the exact scores), the `nonprivate` histogram and, for groups, the exact sizes (in
#'   the `group_sizes` attribute); for comparison only, never publish them. Default
#'   `getOption("dppcapy.nonprivate", FALSE)`: `options(dppcapy.nonprivate = TRUE)`
#'   switches every call of the session.
#' @return A list of class `dppca_score`, as in 'dppca': `score` (n x 2 matrix of the
#'   NON-PRIVATE scores, columns `PC<a>`, `PC<b>`; only when `nonprivate = TRUE`),
#'   `frame` (`list(xlim, ylim)`), then the histograms `nonprivate` (only when
#'   `nonprivate = TRUE`), `add` and/or `sparse`: data frames with columns `xmin`,
#'   `xmax`, `ymin`, `ymax`, `prob`. Attributes: `ledger`, `bins`, `centre` (private
#'   frame centre), `private`, `summary`.
#' @examples
#' if (dppca_available()) {
#'   res <- dp_score(gau[1:1000, ], eps = 2, delta = 1e-4, bins = c(10, 10), seed = 1)
#'   names(res)
#'   head(res$add)
#' }
#' @export
dp_score <- function(X, eps, delta, bins = NULL, method = c("add", "sparse"), center = TRUE,
                     standardize = FALSE, g_dppca = FALSE, cpp.option = FALSE, axes = c(1, 2),
                     seed = NULL, calibration = "analytic",
                     nonprivate = getOption("dppcapy.nonprivate", FALSE)) {
  result <- .py_score(X, NULL, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate)
  .score_value(result, X)
}

#' Private score histograms per group
#'
#' [dp_score()] for labelled data: one shared private frame and grid, one histogram per
#' group and method. Same arguments and return structure as `dppca::dp_score_group()`.
#' Groups come in order of first appearance, as in 'dppca'. The group labels are treated
#' as public (like n); the group sizes are released only through the noisy histograms.
#'
#' @inheritParams dp_score
#' @param group A column name of `X`, or one label per row (no `NA`; every group needs
#'   at least 2 rows).
#' @return A list of class `dppca_score`: `score` (only when `nonprivate = TRUE`),
#'   `frame` (`list(xlim, ylim)`) and `groups`, a named list with one entry per group:
#'   `list(n, nonprivate, add, sparse)` where `n` is the group's **private** size
#'   estimate (rounded, from the first method's histogram; 'dppca' returns the exact
#'   size), `nonprivate` is there only when `nonprivate = TRUE`, and the histograms are
#'   data frames (`xmin`, `xmax`, `ymin`, `ymax`, `prob`), `prob` summing to 1 within the
#'   group. Attributes as in [dp_score()], plus `group_sizes` (private estimates per
#'   method; with `nonprivate = TRUE` also the exact sizes, column
#'   `exact (NON-PRIVATE)`).
#' @examples
#' if (dppca_available()) {
#'   res <- dp_score_group(gau_g[seq(1, 5000, 5), ], "group", eps = 2, delta = 1e-4,
#'                         bins = c(10, 10), method = "add", seed = 1)
#'   names(res$groups)
#' }
#' @export
dp_score_group <- function(X, group, eps, delta, bins = NULL, method = c("add", "sparse"),
                           center = TRUE, standardize = FALSE, g_dppca = FALSE,
                           cpp.option = FALSE, axes = c(1, 2), seed = NULL,
                           calibration = "analytic",
                           nonprivate = getOption("dppcapy.nonprivate", FALSE)) {
  result <- .py_score(X, group, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate)
  .score_value(result, X)
}

# The Python ScoreResult of dp_score (group = NULL) or dp_score_group.
.py_score <- function(X, group, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate) {
  .check_flags(center = center, standardize = standardize, g_dppca = g_dppca,
               cpp.option = cpp.option, nonprivate = nonprivate)
  method <- .expand_choices(method, c("add", "sparse"))
  args <- list(eps = eps, delta = delta, bins = .as_pair(bins), method = as.list(method),
               center = center, standardize = standardize, g_dppca = g_dppca,
               axes = .as_pair(axes), calibration = calibration, rng = .seed(seed),
               nonprivate = nonprivate)
  if (is.null(group)) {
    return(do.call(.invoke, c(list(.py()$dp_score, .as_py_data(X)), args)))
  }
  data <- .grouped_data(X, group)
  do.call(.invoke, c(list(.py()$dp_score_group, data, .group_column), args))
}

.group_column <- ".dppcapy_group"

# X with the labels as a factor column whose levels are in order of first appearance, the
# order 'dppca' uses for its groups (pandas receives a Categorical).
.grouped_data <- function(X, group) {
  data <- .as_py_data(X)
  if (is.character(group) && length(group) == 1L && nrow(data) != 1L) {
    if (!group %in% names(data)) {
      .abort("`group` must name a column of X or give one label per row; no column '",
             group, "'", class = "dppca_value_error")
    }
    labels <- data[[group]]
    data[[group]] <- NULL
  } else {
    labels <- group
  }
  if (length(labels) != nrow(data)) {
    .abort("`group` must have one label per row of X (", nrow(data), "); got ",
           length(labels), class = "dppca_value_error")
  }
  if (anyNA(labels)) {
    .abort("`group` must not have missing labels; ", sum(is.na(labels)), " missing",
           class = "dppca_value_error")
  }
  text <- as.character(labels)
  data[[.group_column]] <- factor(text, levels = unique(text))
  data
}

# A length-2 numeric argument as a Python list (NULL stays None; one number stays one).
.as_pair <- function(x) if (is.numeric(x) && length(x) > 1L) as.list(x) else x

# The R value of a ScoreResult; the NON-PRIVATE scores (nonprivate = TRUE only) get X's
# row names, as in 'dppca'.
.score_value <- function(result, X) {
  out <- .from_py(result)
  if (!is.null(out$score)) rownames(out$score) <- rownames(X)
  out
}
