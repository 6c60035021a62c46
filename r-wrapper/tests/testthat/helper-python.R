# Skip (never fail) where the Python core is not there: on CRAN, or without a Python
# that has 'dppca'. CI sets NOT_CRAN=true and RETICULATE_PYTHON, so everything runs.
skip_if_no_dppca <- function() {
  skip_on_cran()
  if (!dppca_available()) skip("Python module 'dppca' not available to reticulate")
}

# Small slices keep the run short where the structure, not the statistics, is tested.
gau_small <- function(n = 400) gau[seq_len(n), ]
adult_small <- function(n = 600) adult[seq_len(n), ]

# The R package dppca's structure of a dp_pc_dir value: a plain p x k numeric matrix.
expect_pc_dir_structure <- function(V, variables, k) {
  m <- as.matrix(V)
  expect_identical(class(m), c("matrix", "array"))
  expect_type(m, "double")
  expect_identical(dim(m), c(length(variables), as.integer(k)))
  expect_identical(dimnames(m), list(variables, paste0("PC", seq_len(k))))
  expect_identical(names(attributes(m)), c("dim", "dimnames"))
  expect_true(is.matrix(V) && inherits(V, "matrix"))
}

# Draw plots on a null device (the score-plot functions print their patchwork).
quietly_plotted <- function(expr) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expr
}

expect_histogram_frame <- function(h, n_bins) {
  expect_s3_class(h, "data.frame")
  expect_identical(names(h), c("xmin", "xmax", "ymin", "ymax", "prob"))
  expect_identical(nrow(h), as.integer(n_bins))
  expect_type(h$prob, "double")
  expect_true(all(h$prob >= 0))
  expect_true(all(h$xmax > h$xmin) && all(h$ymax > h$ymin))
}

# Every name inside a result, at every depth: list entries, data-frame and matrix column
# names, and attributes (with their own contents).
names_within <- function(x) {
  extra <- attributes(x)
  extra <- extra[setdiff(names(extra), c("names", "row.names", "class", "dim", "dimnames"))]
  parts <- c(if (is.list(x)) unclass(x), extra)
  c(names(x), colnames(x), names(extra), unlist(lapply(parts, names_within), use.names = FALSE))
}

# A result of a private call (g_dppca = TRUE) with private numbers only: no `nonprivate`
# entry, no `score` matrix, no exact (NON-PRIVATE) column at any depth, and a summary that
# shows none.
expect_private_only <- function(x) {
  found <- names_within(x)
  expect_identical(found[found %in% c("nonprivate", "score") | grepl("exact|NON-PRIVATE", found)],
                   character(0))
  expect_true(isTRUE(attr(x, "private")))
  expect_no_match(attr(x, "summary"), "NON-PRIVATE", fixed = TRUE)
}

# The default of `nonprivate` in the formals of a function: the option, FALSE when unset.
expect_private_default <- function(f) {
  expect_identical(formals(f)$nonprivate, quote(getOption("dppcapy.nonprivate", FALSE)))
}

# `expr` evaluated with options(dppcapy.nonprivate = TRUE), the option restored after.
with_nonprivate_option <- function(expr) {
  old <- options(dppcapy.nonprivate = TRUE)
  on.exit(options(old))
  expr
}

# name -> function(X, ...) calling each private function with cheap settings (2 components,
# eps = 2, seed 1; the grouped ones with two alternating labels); plots on a null device.
two_labels <- function(X) rep_len(c("x", "y"), nrow(X))
private_calls <- list(
  dp_pc_dir = function(X, ...) dp_pc_dir(X, k = 2, eps = 2, delta = 1e-5, seed = 1, ...),
  dp_scree = function(X, ...) dp_scree(X, k = 2, eps = 2, delta = 1e-5, seed = 1, ...),
  dp_scree_plot = function(X, ...) quietly_plotted(
    dp_scree_plot(X, k = 2, eps = 2, delta = 1e-5, seed = 1, ...)),
  dp_score = function(X, ...) dp_score(X, eps = 2, delta = 1e-5, method = "add", seed = 1, ...),
  dp_score_group = function(X, ...) dp_score_group(X, two_labels(X), eps = 2, delta = 1e-5,
                                                   method = "add", seed = 1, ...),
  dp_score_plot = function(X, ...) quietly_plotted(
    dp_score_plot(X, eps = 2, delta = 1e-5, method = "add", private_plot = "histogram",
                  seed = 1, ...)),
  dp_score_plot_group = function(X, ...) quietly_plotted(
    dp_score_plot_group(X, two_labels(X), eps = 2, delta = 1e-5, method = "add",
                        private_plot = "histogram", seed = 1, ...))
)

# The ledger of a result of any private function (a score-plot list keeps it on `score`).
result_ledger <- function(result) {
  ledger <- dp_ledger(result)
  if (is.null(ledger)) ledger <- dp_ledger(result$score)
  ledger
}
