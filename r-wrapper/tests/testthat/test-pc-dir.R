test_that("dp_pc_dir has the R package's arguments and defaults", {
  args <- formals(dp_pc_dir)
  expect_identical(names(args)[1:8], c("X", "k", "center", "standardize", "g_dppca", "eps",
                                       "delta", "cpp.option"))
  expect_identical(args[c("center", "standardize", "eps", "delta", "cpp.option")],
                   list(center = TRUE, standardize = FALSE, eps = NULL, delta = NULL,
                        cpp.option = FALSE))
  # Private by default when a budget is given ('dppca': FALSE whatever the budget).
  expect_identical(args$g_dppca, quote(!is.null(eps)))
})

test_that("non-private dp_pc_dir on gau returns R's p x k matrix and the covariance eigenvectors", {
  skip_if_no_dppca()
  X <- gau_small()
  V <- dp_pc_dir(X, k = 3)
  expect_pc_dir_structure(V, names(gau), 3)
  reference <- eigen(stats::cov(X), symmetric = TRUE)$vectors[, 1:3]
  # Same subspace up to sign: |<v_j, u_j>| = 1 to rounding (LAPACK in both).
  expect_equal(abs(colSums(as.matrix(V) * reference)), rep(1, 3), tolerance = 1e-8,
               ignore_attr = TRUE)
  expect_null(dp_ledger(V))
})

test_that("private dp_pc_dir on gau: structure, ledger, summary", {
  skip_if_no_dppca()
  V <- dp_pc_dir(gau_small(), k = 2, g_dppca = TRUE, eps = 1, delta = 1e-5, seed = 7)
  expect_pc_dir_structure(V, names(gau), 2)
  expect_s3_class(V, "dppca_directions")
  expect_equal(crossprod(as.matrix(V)), diag(2), tolerance = 1e-10, ignore_attr = TRUE)
  ledger <- dp_ledger(V)
  expect_s3_class(ledger, "dppca_ledger")
  expect_identical(names(ledger), c("step", "mechanism", "sensitivity", "norm", "noise_scale",
                                    "eps", "delta"))
  expect_equal(sum(ledger$eps), 1)
  expect_equal(sum(ledger$delta), 1e-5)
  expect_equal(attr(ledger, "budget"), c(eps = 1, delta = 1e-5))
  # print(): the matrix as 'dppca' shows it, then one privacy line; summary(): all of it.
  text <- capture.output(print(V))
  expect_identical(head(text, -1), capture.output(print(as.matrix(V))))
  expect_identical(tail(text, 1), paste0("<(eps = 1, delta = 1e-05)-DP g-DPPCA directions, ",
                                         "Gaussian (analytic) noise; summary() for details, ",
                                         "dp_ledger() for the releases>"))
  full <- capture.output(summary(V))
  expect_match(full[1], "Differentially Private PC Directions", fixed = TRUE)
  expect_true(any(grepl("Seed:\\s+7", full)))
  expect_output(print(ledger), "Privacy ledger: budget eps = 1, delta = 1e-05")
})

test_that("the one-line footer of a rank-path result names the path and its estimand", {
  skip_if_no_dppca()
  V <- dp_pc_dir(gau_small(), k = 2, standardize = "rank", eps = 1, delta = 1e-5, seed = 7)
  expect_identical(tail(capture.output(print(V)), 1),
                   paste0("<(eps = 1, delta = 1e-05)-DP rank-path directions (latent ",
                          "Gaussian-copula correlation), Gaussian (analytic) noise; summary() ",
                          "for details, dp_ledger() for the releases>"))
  # NON-PRIVATE: the sample latent correlation, not the sample covariance.
  W <- dp_pc_dir(gau_small(), k = 2, standardize = "rank", g_dppca = FALSE)
  expect_identical(tail(capture.output(print(W)), 1),
                   paste0("<NON-PRIVATE rank-path directions (sample latent Gaussian-copula ",
                          "correlation); summary() for details>"))
  # The covariance path keeps its own words.
  expect_identical(tail(capture.output(print(dp_pc_dir(gau_small(), k = 2))), 1),
                   "<NON-PRIVATE directions (sample covariance); summary() for details>")
})

test_that("dp_pc_dir keeps R's names: matrix columns, and none for an unnamed matrix", {
  skip_if_no_dppca()
  X <- as.matrix(adult_small())
  expect_pc_dir_structure(dp_pc_dir(X, k = 2), colnames(X), 2)
  V <- dp_pc_dir(unname(X), k = 2)
  expect_identical(dimnames(as.matrix(V)), list(NULL, c("PC1", "PC2")))
})

test_that("private dp_pc_dir works on adult (duplicate rows) and gau_g features", {
  skip_if_no_dppca()
  V <- dp_pc_dir(adult_small(), k = 2, g_dppca = TRUE, eps = 2, delta = 1e-5, seed = 1)
  expect_pc_dir_structure(V, names(adult), 2)
  # Standardizing with public scales (passed through to Python) keeps the whole budget.
  S <- dp_pc_dir(adult_small(), k = 2, standardize = TRUE, g_dppca = TRUE, eps = 2,
                 delta = 1e-5, seed = 1, scale = c(13, 2.6, 7000, 400, 12))
  expect_pc_dir_structure(S, names(adult), 2)
  expect_equal(sum(dp_ledger(S)$eps), 2)
  W <- dp_pc_dir(gau_g[seq(1, 5000, by = 10), 1:20], k = 2, g_dppca = TRUE, eps = 1,
                 delta = 1e-5, seed = 1)
  expect_pc_dir_structure(W, names(gau), 2)
})

test_that("set.seed() and seed = reproduce dp_pc_dir; different seeds differ", {
  skip_if_no_dppca()
  X <- gau_small(200)
  run <- function(...) dp_pc_dir(X, k = 2, g_dppca = TRUE, eps = 1, delta = 1e-5, ...)
  set.seed(11); a <- run()
  set.seed(11); b <- run()
  set.seed(12); c <- run()
  expect_identical(a, b)
  expect_false(identical(as.matrix(a), as.matrix(c)))
  expect_identical(as.matrix(run(seed = 3)), as.matrix(run(seed = 3)))
})

test_that("dp_pc_dir: bad input gives R errors", {
  skip_if_no_dppca()
  X <- gau_small(50)
  expect_error(dp_pc_dir(X, k = 0), "`k` must be an integer", class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 1.5), "`k`", class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, g_dppca = TRUE, eps = 1), "`delta` is required",
               class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, g_dppca = TRUE, eps = 1, delta = 2), "`delta`",
               class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, g_dppca = NA), "`g_dppca` must be TRUE or FALSE",
               class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, center = c(TRUE, FALSE)), "`center`", class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, cpp.option = "yes"), "`cpp.option` must be TRUE or FALSE",
               class = "dppca_error")
  expect_error(dp_pc_dir(X, k = 2, g_dppca = TRUE, eps = 1, delta = 1e-5, seed = -1), "`seed`",
               class = "dppca_error")
  expect_error(dp_pc_dir(data.frame(a = letters[1:5], b = 1:5), k = 1), class = "dppca_error")
  expect_error(dp_pc_dir(list(1, 2), k = 1), "`X` must be", class = "dppca_error")
})

test_that("cpp.option is accepted and ignored", {
  skip_if_no_dppca()
  X <- gau_small(200)
  expect_identical(dp_pc_dir(X, 2, g_dppca = TRUE, eps = 1, delta = 1e-5, cpp.option = TRUE, seed = 2),
                   dp_pc_dir(X, 2, g_dppca = TRUE, eps = 1, delta = 1e-5, seed = 2))
})

test_that("dp_pc_dir(standardize = \"rank\") takes the rank path and refuses other strings", {
  skip_if_no_dppca()
  V <- dp_pc_dir(gau_small(), k = 2, standardize = "rank", eps = 1, delta = 1e-5, seed = 3)
  expect_pc_dir_structure(V, names(gau), 2)
  # Unit orthogonal columns (the eigenvectors of a symmetric matrix), to rounding.
  expect_equal(crossprod(as.matrix(V)), diag(2), tolerance = 1e-10, ignore_attr = TRUE)
  ledger <- dp_ledger(V)
  expect_equal(sum(ledger$eps), 1)
  expect_match(paste(capture.output(summary(V)), collapse = " "), "latent", fixed = TRUE)
  expect_error(dp_pc_dir(gau_small(), k = 2, standardize = "ranks", eps = 1, delta = 1e-5),
               class = "dppca_type_error")
})
