test_that("dp_score and dp_score_group have the R package's arguments and defaults", {
  expect_identical(names(formals(dp_score))[1:10],
                   c("X", "eps", "delta", "bins", "method", "center", "standardize", "g_dppca",
                     "cpp.option", "axes"))
  expect_identical(formals(dp_score)$method, quote(c("add", "sparse")))
  expect_identical(formals(dp_score)$axes, quote(c(1, 2)))
  expect_identical(names(formals(dp_score_group))[1:11],
                   c("X", "group", "eps", "delta", "bins", "method", "center", "standardize",
                     "g_dppca", "cpp.option", "axes"))
})

test_that("dp_score on gau returns R's list: score, frame, nonprivate, add, sparse", {
  skip_if_no_dppca()
  X <- gau_small()
  res <- dp_score(X, eps = 2, delta = 1e-4, bins = c(8, 6), seed = 1, nonprivate = TRUE)
  expect_true(is.list(res))
  expect_identical(names(res), c("score", "frame", "nonprivate", "add", "sparse"))
  expect_identical(dim(res$score), c(nrow(X), 2L))
  # the row names of as.matrix(X), as in 'dppca': gau[1:400, ] keeps "1".."400"
  expect_identical(dimnames(res$score), list(as.character(seq_len(nrow(X))), c("PC1", "PC2")))
  expect_identical(names(res$frame), c("xlim", "ylim"))
  expect_true(is.numeric(res$frame$xlim) && length(res$frame$xlim) == 2L)
  expect_lt(res$frame$xlim[1], res$frame$xlim[2])
  for (h in res[c("nonprivate", "add", "sparse")]) expect_histogram_frame(h, 48)
  expect_equal(sum(res$nonprivate$prob), 1)
  expect_equal(sum(res$add$prob), 1)
  expect_equal(range(res$add$xmin, res$add$xmax), res$frame$xlim)
  ledger <- dp_ledger(res)
  expect_s3_class(ledger, "dppca_ledger")
  expect_lte(sum(ledger$eps), 2 * (1 + 1e-9))
  expect_identical(attr(res, "bins"), c(8L, 6L))
  expect_output(print(res), "Differentially Private PC Score Histograms")
})

test_that("dp_score: one method, other axes, private only, g_dppca, adult", {
  skip_if_no_dppca()
  X <- gau_small()
  one <- dp_score(X, eps = 2, delta = 1e-4, bins = 5, method = "add", axes = c(1, 3), seed = 1,
                  nonprivate = TRUE)
  expect_identical(names(one), c("score", "frame", "nonprivate", "add"))
  expect_identical(colnames(one$score), c("PC1", "PC3"))
  private <- dp_score(X, eps = 2, delta = 1e-4, bins = 5, method = "s", nonprivate = FALSE,
                      g_dppca = TRUE, seed = 1)
  expect_identical(names(private), c("frame", "sparse"))
  expect_true(attr(private, "private"))
  expect_true(any(grepl("^directions", dp_ledger(private)$step)))
  a <- dp_score(adult_small(), eps = 2, delta = 1e-4, bins = c(10, 10), seed = 1,
                nonprivate = TRUE)
  expect_identical(dimnames(a$score), list(as.character(1:600), c("PC1", "PC2")))
  expect_histogram_frame(a$add, 100)
})

test_that("dp_score_group on gau_g returns R's list with one entry per group", {
  skip_if_no_dppca()
  X <- gau_g[seq(1, 5000, by = 10), ]
  res <- dp_score_group(X, "group", eps = 5, delta = 1e-4, bins = c(6, 6), seed = 1,
                        nonprivate = TRUE)
  expect_identical(names(res), c("score", "frame", "groups"))
  expect_identical(dim(res$score), c(500L, 2L))
  expect_identical(names(res$groups), paste0("group", 1:5))
  for (g in res$groups) {
    expect_identical(names(g), c("n", "nonprivate", "add", "sparse"))
    expect_type(g$n, "integer")
    expect_histogram_frame(g$add, 36)
    expect_equal(sum(g$nonprivate$prob), 1)
  }
  expect_s3_class(attr(res, "group_sizes"), "data.frame")
  # Labels as a factor: its levels are the public domain and give the order of the groups.
  rev_rows <- rev(seq_len(nrow(X)))
  labels <- factor(X$group[rev_rows], levels = paste0("group", 5:1))
  by_vector <- dp_score_group(X[rev_rows, 1:20], labels, eps = 2, delta = 1e-4,
                              bins = 4, method = "add", seed = 1, nonprivate = FALSE)
  expect_identical(names(by_vector), c("frame", "groups"))
  expect_identical(names(by_vector$groups), paste0("group", 5:1))
  expect_identical(names(by_vector$groups$group5), c("n", "add"))
})

test_that("set.seed() reproduces dp_score and dp_score_group", {
  skip_if_no_dppca()
  X <- gau_small(300)
  run <- function() dp_score(X, eps = 1, delta = 1e-4, bins = 5, method = "add")
  set.seed(5); a <- run()
  set.seed(5); b <- run()
  set.seed(6); c <- run()
  expect_identical(a, b)
  expect_false(identical(a$add, c$add))
  G <- gau_g[seq(1, 5000, by = 20), ]
  G$group <- factor(G$group)  # declared labels (a factor's levels are the public domain)
  run_group <- function() dp_score_group(G, "group", eps = 1, delta = 1e-4, bins = 5, method = "add")
  set.seed(5); ga <- run_group()
  set.seed(5); gb <- run_group()
  expect_identical(ga, gb)
})

test_that("Python warnings arrive as R warnings", {
  skip_if_no_dppca()
  expect_warning(dp_score(gau_small(200), eps = 0.2, delta = 1e-4, bins = 20, method = "sparse",
                          seed = 1),
                 "'sparse' histogram kept no mass")
})

test_that("dp_score and dp_score_group: bad input gives R errors", {
  skip_if_no_dppca()
  X <- gau_small(100)
  expect_error(dp_score(X, eps = 0, delta = 1e-4, bins = 5), "`eps`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1, bins = 5), "`delta`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, bins = c(0, 5)), "`bins`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, bins = 2.5), "`bins`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, axes = c(1, 1)), "`axes`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, axes = c(1, 30)), "`axes`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, method = "foo"), "`method`", class = "dppca_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, center = NA), "`center`", class = "dppca_error")
  expect_error(dp_score(X[, 1, drop = FALSE], eps = 1, delta = 1e-4), "2 numeric columns",
               class = "dppca_error")
  G <- gau_g[1:100, ]
  expect_error(dp_score_group(G, "nope", eps = 1, delta = 1e-4), "no column 'nope'",
               class = "dppca_error")
  expect_error(dp_score_group(G[, 1:20], G$group[-1], eps = 1, delta = 1e-4),
               "one label per row", class = "dppca_error")
  expect_error(dp_score_group(G[, 1:20], replace(G$group, 3, NA), eps = 1, delta = 1e-4),
               "missing labels", class = "dppca_error")
  if (!dppcapy:::.py_accepts(dppcapy:::.py()$dp_score_group, "levels")) {
    # Before private partition selection (issue 9) the core refused tiny groups.
    expect_error(dp_score_group(G[, 1:20], c("a", rep("b", 99)), eps = 1, delta = 1e-4),
                 "at least 2 rows", class = "dppca_error")
  }
})

test_that("dp_score and dp_score_group return private numbers only by default; the option switches", {
  expect_private_default(dp_score)
  expect_private_default(dp_score_group)
  skip_if_no_dppca()
  X <- gau_small(300)
  run <- function() dp_score(X, eps = 2, delta = 1e-4, bins = 5, g_dppca = TRUE, seed = 2)
  res <- run()
  expect_identical(names(res), c("frame", "add", "sparse"))
  expect_error(res$score, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_private_only(res)
  switched <- with_nonprivate_option(run())
  expect_identical(names(switched), c("score", "frame", "nonprivate", "add", "sparse"))
  expect_identical(switched$add, res$add)
  G <- gau_g[seq(1, 5000, by = 10), ]   # 100 rows per group
  run_group <- function(...) dp_score_group(G, "group", eps = 3, delta = 1e-4, bins = 5,
                                            method = "add", g_dppca = TRUE, seed = 2, ...)
  grouped <- run_group()
  expect_identical(names(grouped), c("frame", "groups"))
  expect_private_only(grouped)
  sizes <- attr(grouped, "group_sizes")
  expect_identical(names(sizes), "add")
  for (g in names(grouped$groups)) {
    expect_identical(names(grouped$groups[[g]]), c("n", "add"))
    # n is the private estimate, rounded to an integer (never the exact size).
    expect_lte(abs(grouped$groups[[g]]$n - sizes[g, "add"]), 0.5)
  }
  exact <- attr(run_group(nonprivate = TRUE), "group_sizes")
  expect_identical(names(exact), c("add", "exact (NON-PRIVATE)"))
  expect_equal(exact[["exact (NON-PRIVATE)"]], rep(100, 5))
  expect_identical(exact$add, sizes$add)
})
