# Issues 12/14: `design` and `pairs_per_row` (incomplete U-statistics) and a path to
# Parquet/CSV files as `X`, passed through to the Python core.

test_that("dp_pc_dir, dp_scree and dp_scree_plot take design and pairs_per_row", {
  for (f in list(dp_pc_dir, dp_scree, dp_scree_plot)) {
    args <- formals(f)
    expect_identical(args$design, quote(c("auto", "complete", "incomplete")))
    expect_null(args$pairs_per_row)
  }
})

# The Python call with the same data (the R data frame, converted once by reticulate) and
# the same seed, as the R object dppcapy builds.
python_result <- function(fn, ...) .from_py(reticulate::import("dppca")[[fn]](...))

test_that("dp_pc_dir with design = 'incomplete' is the Python call with the same seed", {
  skip_if_no_dppca()
  X <- gau_small(300)
  V <- dp_pc_dir(X, 2, eps = 1, delta = 1e-5, design = "incomplete", pairs_per_row = 50,
                 seed = 3)
  # Same process, same data, same seed: the same doubles, so identical objects.
  expect_identical(V, python_result("dp_pc_dir", X, 2L, g_dppca = TRUE, eps = 1, delta = 1e-5,
                                    design = "incomplete", pairs_per_row = 50L, rng = 3L))
  # The summary says which statistic was released (blocks of 60 rows here: >= 59 pairs).
  expect_match(attr(V, "summary"), "incomplete U-statistic: random blocks, >= 59 pairs per row")
  # A prefix is accepted as by match.arg, and the default is "auto" (complete at this n).
  expect_identical(dp_pc_dir(X, 2, eps = 1, delta = 1e-5, design = "inc", pairs_per_row = 50,
                             seed = 3), V)
  complete <- dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 3)
  expect_identical(complete, dp_pc_dir(X, 2, eps = 1, delta = 1e-5, design = "complete",
                                       seed = 3))
  expect_false(identical(as.matrix(complete), as.matrix(V)))
})

test_that("dp_scree and dp_scree_plot with design = 'incomplete' are the Python call", {
  skip_if_no_dppca()
  X <- gau_small(400)
  S <- dp_scree(X, 2, c("clipped", "huber"), eps = 2, delta = 1e-5, design = "incomplete",
                pairs_per_row = 99, seed = 5)
  expect_identical(S, python_result("dp_scree", X, 2L, list("clipped", "huber"), eps = 2,
                                    delta = 1e-5, design = "incomplete", pairs_per_row = 99L,
                                    rng = 5L))
  expect_false(identical(S$clipped, dp_scree(X, 2, "clipped", eps = 2, delta = 1e-5,
                                             seed = 5)$clipped))
  P <- quietly_plotted(dp_scree_plot(X, 2, c("clipped", "huber"), eps = 2, delta = 1e-5,
                                     design = "incomplete", pairs_per_row = 99, seed = 5))
  expect_identical(P, S)
})

test_that("design and pairs_per_row: bad values are R errors naming the argument", {
  skip_if_no_dppca()
  X <- gau_small(200)
  run <- function(...) dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 1, ...)
  expect_error(run(design = "blocks"), "`design` must be one or more of",
               class = "dppca_value_error")
  expect_error(run(design = c("auto", "complete")), '`design` must be one of "auto"',
               class = "dppca_value_error")
  expect_error(run(design = NA_character_), "`design`", class = "dppca_value_error")
  expect_error(run(design = "incomplete", pairs_per_row = 2.5),
               "`pairs_per_row` must be a whole number", class = "dppca_value_error")
  expect_error(run(design = "incomplete", pairs_per_row = "50"),
               "`pairs_per_row` must be a whole number", class = "dppca_type_error")
  expect_error(run(design = "incomplete", pairs_per_row = c(5, 6)), "`pairs_per_row`",
               class = "dppca_type_error")
  # Ranges are the Python core's, with its messages: r in [1, n - 1], none with "complete".
  expect_error(run(design = "incomplete", pairs_per_row = 200),
               "`pairs_per_row` must be an integer in \\[1, 199\\]", class = "dppca_value_error")
  expect_error(run(design = "incomplete", pairs_per_row = 0), "`pairs_per_row`",
               class = "dppca_value_error")
  expect_error(run(design = "complete", pairs_per_row = 10), "design='complete' uses every pair",
               class = "dppca_value_error")
  expect_error(dp_scree(X, 2, eps = 1, delta = 1e-5, design = "incomplete",
                        pairs_per_row = 1.5), "`pairs_per_row` must be a whole number",
               class = "dppca_value_error")
  expect_error(dp_scree(X, 2, eps = 1, delta = 1e-5, design = "complete", pairs_per_row = 9),
               "design='complete' uses every pair", class = "dppca_value_error")
  expect_error(quietly_plotted(dp_scree_plot(X, 2, eps = 1, delta = 1e-5, design = "full")),
               "`design`", class = "dppca_value_error")
})

# gau_small(n) written by pandas (pyarrow) to a Parquet file: the same doubles as in R.
parquet_file <- function(X) {
  path <- tempfile(fileext = ".parquet")
  reticulate::r_to_py(X)$to_parquet(path, index = FALSE)
  path
}

test_that("X as a Parquet path: same result as the data frame with the same seed", {
  skip_if_no_dppca()
  X <- gau_small(300)
  path <- parquet_file(X)
  on.exit(unlink(path))
  # complete data, declared so (missing = 0): the file route reads no missing-cell policy
  run <- function(data) dp_pc_dir(data, 2, eps = 1, delta = 1e-5, design = "incomplete",
                                  pairs_per_row = 50, seed = 3, missing = 0)
  from_file <- run(path)
  expect_pc_dir_structure(from_file, names(gau), 2)
  # dask adds the Kendall block sums chunk by chunk: equal up to the order of additions
  # (docs/scaling.md: ~1e-15), so a tolerance of 1e-12 on unit vectors.
  expect_equal(from_file, run(X), tolerance = 1e-12)
  # dp_scree on a path: the incomplete pair statistics ("auto" for files; r = min(4095, n - 1)),
  # the same numbers as the data frame with that design (r = n - 1 = 299). Both declare the
  # data complete (missing = 0), so neither releases the default's private medians.
  scree <- function(data, ...) dp_scree(data, 2, eps = 2, delta = 1e-5, seed = 4, missing = 0, ...)
  S <- scree(path)
  expect_false(any(startsWith(dp_ledger(S)$step, "missing values")))
  expect_private_only(S)
  in_memory <- scree(X, design = "incomplete", pairs_per_row = 299)
  expect_identical(dp_ledger(S)$step, dp_ledger(in_memory)$step)
  # The same pairs, summed chunk by chunk by dask: equal up to the order of additions.
  for (field in c("scree", "pve")) {
    expect_equal(S$clipped[[field]], in_memory$clipped[[field]], tolerance = 1e-10)
  }
  for (field in c("raw", "total_variance", "conf_int")) {
    expect_equal(attr(S$clipped, field), attr(in_memory$clipped, field), tolerance = 1e-10)
  }
})

test_that("X as a CSV path (and a glob of CSV files) is read by Python", {
  skip_if_no_dppca()
  dir <- tempfile("csv")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  X <- gau_small(300)
  utils::write.csv(X[1:150, ], file.path(dir, "part-1.csv"), row.names = FALSE)
  utils::write.csv(X[151:300, ], file.path(dir, "part-2.csv"), row.names = FALSE)
  # The numbers as written (15 significant digits), read back by R for the reference.
  written <- rbind(utils::read.csv(file.path(dir, "part-1.csv")),
                   utils::read.csv(file.path(dir, "part-2.csv")))
  # complete data, declared so (missing = 0): the file route reads no missing-cell policy
  run <- function(data) dp_pc_dir(data, 2, eps = 1, delta = 1e-5, design = "incomplete",
                                  pairs_per_row = 50, seed = 8, missing = 0)
  # R's and pandas' parsers may differ in the last bit: tolerance 1e-10 as in test-routes.R.
  expect_equal(run(file.path(dir, "part-*.csv")), run(written), tolerance = 1e-10)
  expect_equal(run(file.path(dir, "part-1.csv")), run(written[1:150, ]), tolerance = 1e-10)
})

test_that("X as a path: R errors for a missing file, several paths, other functions", {
  skip_if_no_dppca()
  missing_file <- file.path(tempdir(), "no-such-file.parquet")
  expect_error(dp_pc_dir(missing_file, 2, eps = 1, delta = 1e-5),
               "`X` = \".*no-such-file.parquet\" does not exist", class = "dppca_file_error")
  expect_error(dp_scree(missing_file, 2, eps = 1, delta = 1e-5), "does not exist",
               class = "dppca_value_error")
  expect_error(dp_pc_dir(c("a.csv", "b.csv"), 2, eps = 1, delta = 1e-5),
               "`X` given as a path must be one string", class = "dppca_type_error")
  expect_error(dp_pc_dir(NA_character_, 2, eps = 1, delta = 1e-5), "one string",
               class = "dppca_type_error")
  expect_error(dp_score("data.parquet", eps = 1, delta = 1e-5),
               "accepted by dp_pc_dir\\(\\), dp_scree\\(\\) and dp_scree_plot\\(\\) only",
               class = "dppca_type_error")
  expect_error(dp_pc_dir(list(1, 2), 2), "a numeric matrix, a data frame or one path",
               class = "dppca_type_error")
  # Files are for private calls with private numbers only (the Python core's rules).
  path <- parquet_file(gau_small(100))
  on.exit(unlink(path))
  expect_error(dp_scree(path, 2, eps = 1, delta = 1e-5, nonprivate = TRUE), "nonprivate",
               class = "dppca_value_error")
  expect_error(dp_pc_dir(path, 2), "g-DPPCA and the private rank path only",
               class = "dppca_value_error")
})
