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
#' @param bounds,scale Declared public bounds and scales per column, as in [dp_pc_dir()]
#'   (no budget; "public (declared)" on the ledger). Bounds also cut the private frame to
#'   the box they give the scores (a frame never wider than the declared box).
#' @param missing What an `NA` (or `NaN`) cell of `X` means, a public policy as in
#'   [dp_pc_dir()]: `"auto"` (default) is `"median"` here (scores need every cell): each
#'   column's private median, from a tenth of eps and delta (the first release on the
#'   ledger), fills its holes. One number or numbers named by column: declared public fill
#'   values, no budget. `"drop"` only with `neighbouring = "add_remove"`.
#' @param neighbouring `"replace"` (default: one row replaced, n public) or `"add_remove"`
#'   (n private), passed to the Python core: the noisy row count is released first and
#'   printed instead of n; what it does not cover (the rank path, private scales,
#'   `g_dppca = FALSE`) is refused from the arguments alone, an R error of class
#'   `dppca_value_error`.
#' @param budget `NULL` (the default: the call is charged nowhere), or the registered dataset
#'   whose budget store is charged the call's (eps, delta) before it computes, in one
#'   transaction (refused with an error once the total is spent): a [dp_budget()] value, or
#'   the dataset's name (a string) in the default store.
#' @param g_dppca Logical. `TRUE` (the default here; 'dppca''s default is `FALSE`):
#'   private g-DPPCA directions, so that the whole result is (eps, delta)-DP. `FALSE`:
#'   NON-PRIVATE directions (sample covariance), said in the summary and on the plots.
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
#'   NON-PRIVATE scores, columns `PC<a>`, `PC<b>`, the row names of `as.matrix(X)`, e.g.
#'   "1".."300" for `gau[1:300, ]`; only when `nonprivate = TRUE`),
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
                     standardize = FALSE, g_dppca = TRUE, cpp.option = FALSE, axes = c(1, 2),
                     seed = NULL, calibration = "analytic", noise = "tight",
                     nonprivate = getOption("dppcapy.nonprivate", FALSE), budget = NULL,
                     bounds = NULL, scale = NULL, missing = "auto",
                     neighbouring = c("replace", "add_remove")) {
  result <- .py_score(X, NULL, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate, noise, budget,
                      .declared_args(bounds, scale), missing, neighbouring)
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
                           center = TRUE, standardize = FALSE, g_dppca = TRUE,
                           cpp.option = FALSE, axes = c(1, 2), seed = NULL,
                           calibration = "analytic", noise = "tight",
                           nonprivate = getOption("dppcapy.nonprivate", FALSE), budget = NULL,
                           bounds = NULL, scale = NULL, missing = "auto",
                           neighbouring = c("replace", "add_remove")) {
  result <- .py_score(X, group, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate, noise, budget,
                      .declared_args(bounds, scale), missing, neighbouring)
  .score_value(result, X)
}

# The Python ScoreResult of dp_score (group = NULL) or dp_score_group.
.py_score <- function(X, group, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate, noise = "tight",
                      budget = NULL, declared = list(), missing = "auto",
                      neighbouring = "replace") {
  .check_standardize(standardize)
  .check_flags(center = center, g_dppca = g_dppca,
               cpp.option = cpp.option, nonprivate = nonprivate)
  method <- .expand_choices(method, c("add", "sparse"))
  args <- list(eps = eps, delta = delta, bins = .as_pair(.whole(bins, "bins", 1:2)),
               method = as.list(method), center = center, standardize = standardize,
               g_dppca = g_dppca, axes = .as_pair(.whole(axes, "axes", 2L, null_ok = FALSE)), calibration = calibration, rng = .seed(seed),
               nonprivate = nonprivate)
  args$budget <- .budget_arg(budget)
  fn <- if (is.null(group)) .py()$dp_score else .py()$dp_score_group
  args <- c(args, declared, .noise_arg(fn, noise), .missing_args(fn, missing, neighbouring))
  if (is.null(group)) {
    return(do.call(.invoke, c(list(.py()$dp_score, .as_py_data(X)), args)))
  }
  data <- .grouped_data(X, group)
  domain <- .group_levels(X, group)
  if (!is.null(domain) && .py_accepts(.py()$dp_score_group, "levels")) args$levels <- as.list(domain)
  do.call(.invoke, c(list(.py()$dp_score_group, data, .group_column), args))
}

.group_column <- ".dppcapy_group"

# X with the labels as a factor column whose levels are in order of first appearance, the
# order 'dppca' uses for its groups (pandas receives a Categorical).
.grouped_data <- function(X, group) {
  data <- .as_py_data(X, nan = FALSE)  # the labels as R has them; the cells converted below
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
  # A factor declares its levels as the public domain of the labels (unused levels kept and
  # released with noisy, possibly empty histograms); other labels go as text, and Python
  # selects the released groups privately.
  data <- .nan_cells(data)
  data[[.group_column]] <- if (is.factor(labels)) labels else as.character(labels)
  data
}

# The public label domain of `group`: the levels of a factor, else NULL.
.group_levels <- function(X, group) {
  labels <- if (is.character(group) && length(group) == 1L && is.data.frame(X) &&
                group %in% names(X)) X[[group]] else group
  if (is.factor(labels)) levels(labels)
}

# Does the Python function `fn` take the argument `arg`? (Arguments added in later
# versions of 'dppca' are passed only when it does.)
.py_accepts <- function(fn, arg) {
  inspect <- reticulate::import("inspect")
  arg %in% reticulate::import_builtins()$list(inspect$signature(fn)$parameters)
}

# A length-2 numeric argument as a Python list (NULL stays None; one number stays one).
.as_pair <- function(x) if (is.numeric(x) && length(x) > 1L) as.list(x) else x

# The R value of a ScoreResult. The NON-PRIVATE `score` matrix (nonprivate = TRUE only) has
# the row names of X as 'dppca' gives them (score = as.matrix(X) %*% V): a matrix's row names,
# a data frame's unless they are automatic (gau[1:300, ] keeps "1".."300"; gau has none).
.score_value <- function(result, X) {
  value <- .from_py(result)
  if ("score" %in% names(value)) rownames(value[["score"]]) <- .matrix_row_names(X)
  value
}

# rownames(as.matrix(X)) without copying X: NULL for automatic data-frame row names.
.matrix_row_names <- function(X) {
  if (is.data.frame(X)) {
    if (.row_names_info(X) > 0L) row.names(X) else NULL
  } else if (is.matrix(X)) rownames(X)
}
