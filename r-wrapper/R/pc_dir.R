#' Private principal component directions
#'
#' Top-`k` principal component directions, non-private (eigenvectors of the sample
#' covariance, `g_dppca = FALSE`) or private with g-DPPCA (Kim and Jung, 2025): the
#' spherical Kendall's tau matrix plus symmetric Gaussian noise, computed by the Python
#' package 'dppca'. Same arguments and return value as `dppca::dp_pc_dir()`.
#'
#' @param X Numeric matrix or data frame (n x p), n >= 2; or one path (a string) to
#'   Parquet files (a `.parquet`/`.pq` file or a directory of them) or to CSV files (`.csv`,
#'   globs such as `"parts/*.csv"` allowed), read lazily and chunk by chunk by Python's
#'   dask (needs the Python extra `dppca[dask]`; private calls only, `g_dppca = TRUE`).
#'   Every column of the files is used and must be numeric. A path that does not exist is
#'   an R error of class `dppca_file_error`.
#' @param k Number of directions, an integer in `1..p`.
#' @param center Logical. Accepted for parity: the directions are translation invariant.
#' @param standardize Logical, or `"rank"`. `TRUE`: divide each column by a scale first.
#'   Private calls use private column scales (35% of the budget, on the ledger) unless
#'   `scale =` (public scales) is passed through `...`; non-private calls use the sample SD.
#'   `"rank"`: the scale-free rank path, the eigenvectors of the latent Gaussian-copula
#'   correlation (Han & Liu 2012) from a private elementwise Kendall's tau matrix (equal to
#'   correlation PCA's for Gaussian data; unchanged by increasing transforms of any column).
#' @param g_dppca Logical. `FALSE`: non-private PCA; `TRUE`: g-DPPCA. Default: `TRUE`
#'   when a budget `eps` is given, so that a call with a budget is private ('dppca''s
#'   default is `FALSE` whatever the budget).
#' @param eps,delta Privacy budget, required when `g_dppca = TRUE`: `eps > 0`,
#'   `0 < delta < 1`.
#' @param cpp.option Logical, accepted and ignored (the Python core is always fast).
#' @param seed `NULL` (draw the Python seed from R's RNG, so [set.seed()] reproduces the
#'   call) or a non-negative integer.
#' @param calibration Gaussian noise calibration: `"analytic"` (Balle and Wang, 2018;
#'   default) or `"classic"` (the R package's formula, proven only for `eps < 1`).
#' @param noise g-DPPCA's noise. `"tight"` (default): sensitivity
#'   \eqn{2\sqrt{2}\|g\|_\infty^2/n} with the chosen `calibration`. `"r_dppca"`: the R
#'   package's noise exactly, to reproduce its numbers: the paper's sensitivity
#'   \eqn{4\|g\|_\infty^2/n} and the classic calibration,
#'   \eqn{\sigma = 4\sqrt{2\ln(1.25/\delta)}/(n\varepsilon)} for the spatial sign (it overrides
#'   `calibration`; proven only for `eps < 1`; about 1.4 times the tight noise). The scree
#'   and score functions pass it to their directions when the Python core takes it there.
#' @param design The pairs of the Kendall's tau U-statistic: `"auto"` (default: complete
#'   while \eqn{n^2 p \le 2 \times 10^{10}}, about a second of work, incomplete above),
#'   `"complete"` (all \eqn{n(n-1)/2} pairs) or `"incomplete"` (the pairs inside the
#'   blocks of \eqn{r + 1} rows of a random block design drawn from the call's seed).
#'   Each row is in one block, so the sensitivity, the noise and the privacy guarantee are
#'   those of the complete statistic; the incomplete one adds a sampling variance of order
#'   \eqn{1/(n r)}. Unique prefixes are accepted.
#' @param pairs_per_row `NULL` (default: a rule that keeps the extra sampling variance at
#'   most a tenth of the noise variance, with a cap on the work) or a whole number
#'   \eqn{r} in `1..(n - 1)`, pairs per row of the incomplete design. Not with
#'   `design = "complete"`.
#' @param bounds `NULL` or declared public metadata per column: a named list of
#'   `c(lower, upper)` pairs, a data frame codebook (columns `column`, `lower`, `upper`,
#'   `scale`, `units`) or the path of a CSV/JSON codebook. Values are clipped to the bounds
#'   and a codebook's scales count as `scale`; no budget ("public (declared)" on the
#'   ledger). The same argument on every private function of the package.
#' @param scale `NULL` or declared public column scales for `standardize = TRUE`: a named
#'   numeric vector or list (some columns; the others get private scales), a codebook as
#'   for `bounds`, or an unnamed numeric vector of p scales. Declared scales cost no budget;
#'   with every column declared no scale is released.
#' @param missing What an `NA` (or `NaN`) cell of `X` means: a public policy, chosen from the
#'   arguments alone and never a refusal, so that the ledger and every message are the same
#'   whichever cells are missing. `"auto"` (default): `"pairwise"` for g-DPPCA's directions
#'   without private scales, `"drop"` under `neighbouring = "add_remove"`, `"median"`
#'   otherwise, the rank path included (its medians keep every pair of rows). `"pairwise"`: a pair of rows uses
#'   the coordinates both observe (complete data give the same statistic; the rank path also
#'   releases its present-row counts and rescales each tau entry by them; g-DPPCA's
#'   off-diagonal entries shrink by the share of pairs observing both coordinates).
#'   `"median"`: each column's private median (a tenth of eps and delta, the first release on
#'   the ledger) fills its holes, shrinking variances and correlations towards 0 by about the
#'   share of missing cells. One number, or numbers named by column (`c(age = 0)`): declared
#'   public fill values, no budget (columns left out of a named vector get private medians,
#'   released for every such column whether or not it has holes). `"drop"`: incomplete rows are removed (complete-case
#'   analysis); it changes n, so only with `neighbouring = "add_remove"`. Integer and logical
#'   columns go to Python as doubles, so that `NA` is NaN there; `Inf` cells are extreme
#'   values (clipped), not missing. Unique prefixes are accepted. See the Python docs page
#'   "Missing values and unknown n".
#' @param neighbouring The neighbouring relation of the guarantee (public, on the ledger):
#'   `"replace"` (default: one row replaced, n public) or `"add_remove"` (one row added or
#'   removed, n private: the call first releases a noisy row count from a share of the budget,
#'   every later sensitivity is its add/remove bound at a public lower bound of n, and the
#'   summary prints the noisy n, never the true one). Covered by the Python core for g-DPPCA
#'   (complete design, public or no scales) and the rank path; elsewhere its refusal, from
#'   the arguments alone, is an R error of class `dppca_value_error`.
#' @param ... Further options of the Python `dppca.dp_pc_dir()` (e.g. `method`, `sign`,
#'   `radius`).
#' @return A p x k numeric matrix, rows = variables, columns `PC1..PCk` (as in 'dppca'),
#'   of class `c("dppca_directions", "matrix", "array")` with attributes `ledger` (the
#'   privacy ledger, see [dp_ledger()]; `NULL` when non-private), `eigenvalues` (of the
#'   released matrix), `method` and `summary`. `as.matrix()` drops the extras.
#' @references Kim, M. and Jung, S. (2025). Robust and differentially private PCA for
#'   non-Gaussian data. arXiv:2507.15232.
#' @examples
#' if (dppca_available()) {
#'   set.seed(1)
#'   V <- dp_pc_dir(gau[1:500, ], k = 2, g_dppca = TRUE, eps = 1, delta = 1e-5)
#'   V
#'   dp_ledger(V)
#'   # the R package's noise exactly (4/n sensitivity, classic calibration)
#'   R <- dp_pc_dir(gau[1:500, ], k = 2, eps = 1, delta = 1e-5, noise = "r_dppca")
#'   dp_ledger(R)$noise_scale
#'   # the incomplete U-statistic (for big n), 200 pairs per row
#'   dp_pc_dir(gau[1:2000, ], k = 2, eps = 1, delta = 1e-5, design = "incomplete",
#'             pairs_per_row = 200, seed = 1)
#'   # a CSV (or Parquet) file, read by dask
#'   path <- tempfile(fileext = ".csv")
#'   utils::write.csv(gau[1:500, ], path, row.names = FALSE)
#'   dp_pc_dir(path, k = 2, eps = 1, delta = 1e-5, seed = 1)
#'   # NA cells are data: pairwise-present Kendall's tau by default, or a declared value
#'   holes <- gau[1:500, ]
#'   holes[cbind(1:50, rep(1:2, 25))] <- NA
#'   print(dp_pc_dir(holes, k = 2, eps = 1, delta = 1e-5, seed = 1))
#'   print(dp_ledger(dp_pc_dir(holes, k = 2, eps = 1, delta = 1e-5, seed = 1, missing = 0)))
#'   # n private: add/remove neighbours (the summary prints the noisy n)
#'   print(summary(dp_pc_dir(gau[1:500, ], k = 2, eps = 1, delta = 1e-5, seed = 1,
#'                           neighbouring = "add_remove")))
#' }
#' @export
dp_pc_dir <- function(X, k, center = TRUE, standardize = FALSE, g_dppca = !is.null(eps),
                      eps = NULL, delta = NULL, cpp.option = FALSE, seed = NULL,
                      calibration = "analytic", noise = "tight",
                      design = c("auto", "complete", "incomplete"), pairs_per_row = NULL,
                      bounds = NULL, scale = NULL, missing = "auto",
                      neighbouring = c("replace", "add_remove"), ...) {
  .check_standardize(standardize)
  .check_flags(center = center, g_dppca = g_dppca,
               cpp.option = cpp.option)
  data <- .as_py_data(X, path_ok = TRUE)
  private <- !identical(g_dppca, FALSE) || !is.null(list(...)$method)
  rng <- if (private) .seed(seed) else seed
  args <- c(list(data, .whole(k, "k", null_ok = FALSE), center = center,
                 standardize = standardize, g_dppca = g_dppca, eps = eps, delta = delta,
                 calibration = calibration, noise = noise, rng = rng),
            .design_args(.py()$dp_pc_dir, design, pairs_per_row),
            .declared_args(bounds, scale),
            .missing_args(.py()$dp_pc_dir, missing, neighbouring), list(...))
  result <- do.call(.invoke, c(list(.py()$dp_pc_dir), args))
  out <- .from_py(result)
  if (!.had_names(X)) rownames(out) <- NULL
  out
}

#' @export
as.matrix.dppca_directions <- function(x, ...) {
  structure(as.vector(unclass(x)), dim = dim(x), dimnames = dimnames(x))
}
