test_that("dp_scree and dp_scree_plot have the R package's arguments", {
  expect_identical(names(formals(dp_scree))[1:11],
                   c("X", "k", "method", "control", "eps", "delta", "center", "standardize",
                     "g_dppca", "cpp.option", "mono"))
  expect_identical(formals(dp_scree)$method, quote(c("clipped", "pmwm", "huber")))
  expect_identical(names(formals(dp_scree_plot))[1:13],
                   c("X", "k", "method", "control", "eps", "delta", "center", "standardize",
                     "g_dppca", "cpp.option", "mono", "type", "plot_control"))
})

expect_scree_entry <- function(entry, k) {
  expect_identical(names(entry), c("scree", "pve"))
  for (v in entry) {
    expect_type(v, "double")
    expect_identical(names(v), paste0("PC", seq_len(k)))
  }
}

test_that("dp_scree on gau: omitted method is clipped; R's list of scree and pve", {
  skip_if_no_dppca()
  res <- dp_scree(gau_small(600), k = 3, eps = 2, delta = 1e-5, g_dppca = TRUE, seed = 1,
                  nonprivate = TRUE)
  expect_true(is.list(res))
  expect_s3_class(res, "dppca_scree")
  expect_identical(names(res), c("nonprivate", "clipped"))
  for (entry in res) expect_scree_entry(entry, 3)
  # The NON-PRIVATE reference is the sample covariance's top eigenvalues, as in 'dppca'.
  expect_equal(unname(res$nonprivate$scree),
               eigen(stats::cov(gau_small(600)), symmetric = TRUE)$values[1:3], tolerance = 1e-10)
  expect_true(all(diff(res$clipped$scree) <= 0) && all(res$clipped$scree >= 0))  # mono = TRUE
  extras <- attributes(res$clipped)
  expect_true(all(c("pve_among_k", "cumulative_pve", "total_variance", "raw", "std_err",
                    "conf_int", "ledger") %in% names(extras)))
  expect_equal(sum(extras$pve_among_k), 1)
  expect_equal(extras$cumulative_pve, cumsum(res$clipped$pve), tolerance = 1e-12)
  expect_identical(dimnames(extras$conf_int), list(paste0("PC", 1:3), c("lower", "upper")))
  expect_equal(sum(dp_ledger(res)$eps), 2)
  expect_true(attr(res, "private"))
  expect_output(print(res), "Differentially Private Scree")
})

test_that("dp_scree with standardize = 'rank': omitted method is the rank path's own", {
  skip_if_no_dppca()
  res <- dp_scree(gau_small(600), k = 2, standardize = "rank", eps = 2, delta = 1e-5, seed = 1)
  expect_s3_class(res, "dppca_scree")
  expect_identical(names(res), "rank")
  # PVE over the public trace p of a correlation matrix (here p = 20 columns).
  expect_equal(res$rank$pve, res$rank$scree / ncol(gau), tolerance = 1e-12)
  expect_output(print(res), "latent Gaussian-copula correlation")
  expect_error(dp_scree(gau_small(600), k = 2, standardize = "rank", method = "clipped",
                        eps = 2, delta = 1e-5), "do not apply")
})

test_that("dp_scree: several methods, controls as R lists, adult, standardized, private only", {
  skip_if_no_dppca()
  X <- gau_small(600)
  res <- dp_scree(X, 2, method = c("h", "clipped", "pmwm"), eps = 3, delta = 1e-5, seed = 2,
                  nonprivate = TRUE, g_dppca = FALSE,
                  control = list(clipped = clipped_control(C_clip = 6),
                                 pmwm = pmwm_control(a = 0, b = 20, trim_const = 10, eta = 0.01)))
  expect_identical(names(res), c("nonprivate", "huber", "clipped", "pmwm"))
  for (entry in res) expect_scree_entry(entry, 2)
  expect_false(attr(res, "private"))
  expect_lte(sum(dp_ledger(res)$eps), 3 * (1 + 1e-9))
  raw_list <- dp_scree(X, 2, "pmwm", control = list(eta = 0.1), eps = 3, delta = 1e-5, seed = 2,
                       nonprivate = FALSE)
  expect_identical(names(raw_list), "pmwm")
  a <- dp_scree(adult_small(), 2, eps = 2, delta = 1e-5, g_dppca = TRUE, seed = 3,
                control = clipped_control(), nonprivate = FALSE)
  expect_scree_entry(a$clipped, 2)
  s <- dp_scree(X, 2, eps = 2, delta = 1e-5, standardize = TRUE, g_dppca = FALSE,
                seed = 3)   # sample SDs, as R
  expect_scree_entry(s$clipped, 2)
})

test_that("set.seed() reproduces dp_scree", {
  skip_if_no_dppca()
  X <- gau_small(400)
  set.seed(21); a <- dp_scree(X, 2, eps = 1, delta = 1e-5, g_dppca = TRUE)
  set.seed(21); b <- dp_scree(X, 2, eps = 1, delta = 1e-5, g_dppca = TRUE)
  set.seed(22); c <- dp_scree(X, 2, eps = 1, delta = 1e-5, g_dppca = TRUE)
  expect_identical(a, b)
  expect_false(identical(a$clipped, c$clipped))
})

test_that("dp_scree and the controls: bad input gives R errors", {
  skip_if_no_dppca()
  X <- gau_small(200)
  expect_error(dp_scree(X, 2, delta = 1e-5), "`eps` is required", class = "dppca_error")
  expect_error(dp_scree(X, 25, eps = 1, delta = 1e-5), "`k`", class = "dppca_error")
  expect_error(dp_scree(X, 2, method = "median", eps = 1, delta = 1e-5), "`method`",
               class = "dppca_error")
  expect_error(dp_scree(X, 2, eps = 1, delta = 1e-5, mono = NA), "`mono`", class = "dppca_error")
  expect_error(dp_scree(X, 2, eps = 1, delta = 1e-5, control = "fast"), "`control`",
               class = "dppca_error")
  expect_error(dp_scree(X, 2, c("clipped", "huber"), eps = 1, delta = 1e-5,
                        control = list(pmwm = pmwm_control())), "not among the requested",
               class = "dppca_error")
  expect_error(clipped_control(C_clip = -1), "`C_clip`", class = "dppca_error")
  expect_error(pmwm_control(a = 5, b = 1), "`a` must be smaller than `b`", class = "dppca_error")
  expect_error(pmwm_control(eta = 0.7), "`eta`", class = "dppca_error")
  expect_error(pmwm_control(split_mode = NA), "`split_mode`", class = "dppca_error")
  expect_error(huber_control(T = 0), "`T`", class = "dppca_error")
  expect_error(huber_control(M = 2.5), "`M`", class = "dppca_error")
  expect_error(huber_control(k_min_m2 = 3, k_max_m2 = 1), "`k_min_m2`", class = "dppca_error")
})

test_that("control constructors return R's fields in R's order", {
  skip_if_no_dppca()
  expect_identical(names(clipped_control(3))[1], "C_clip")
  expect_identical(names(pmwm_control(a = 0, b = 20, trim_const = 10, eta = 0.01))[1:6],
                   c("beta", "a", "b", "trim_const", "eta", "split_mode"))
  expect_identical(names(huber_control(k_min_m2 = -10, k_max_m2 = 10, m2_frac = 0.25)),
                   c("mu0", "eta0", "T", "M", "k_min_m2", "k_max_m2", "m2_frac"))
})

test_that("scree_plot_control has the R package's 15 settings and checks them", {
  ctrl <- scree_plot_control()
  expect_identical(names(ctrl), c("title", "xlab", "ylab", "legend_position", "legend_labels",
                                  "col", "lty", "pch", "lwd", "point_cex", "cex_main",
                                  "cex_lab", "cex_axis", "cex_legend", "legend_bty"))
  expect_identical(ctrl$legend_position, "topright")
  expect_error(scree_plot_control(lwd = 0), "`lwd`", class = "dppca_error")
  expect_error(scree_plot_control(col = c("red")), "`col`", class = "dppca_error")
  expect_error(scree_plot_control(col = c(median = "red")), "`col`", class = "dppca_error")
  expect_error(scree_plot_control(title = 1), "`title`", class = "dppca_error")
})

test_that("dp_scree_plot draws and returns the dp_scree value invisibly", {
  skip_if_no_dppca()
  X <- gau_small(400)
  res <- quietly_plotted(withVisible(dp_scree_plot(
    X, 3, method = c("clipped", "huber"), eps = 2, delta = 1e-5, g_dppca = TRUE, type = "s",
    plot_control = scree_plot_control(col = c(huber = "purple"), title = "t"), seed = 4,
    nonprivate = TRUE)))
  expect_false(res$visible)
  expect_identical(names(res$value), c("nonprivate", "clipped", "huber"))
  set.seed(4)
  same <- quietly_plotted(dp_scree_plot(X, 3, method = c("clipped", "huber"), eps = 2,
                                        delta = 1e-5, g_dppca = TRUE, seed = 4,
                                        nonprivate = TRUE))
  expect_identical(same, res$value)
  expect_error(dp_scree_plot(X, 2, eps = 1, delta = 1e-5, type = "bar"), "`type`",
               class = "dppca_error")
  expect_error(dp_scree_plot(X, 2, eps = 1, delta = 1e-5, plot_control = "red"),
               "`plot_control`", class = "dppca_error")
})

test_that("dp_scree and dp_scree_plot return private numbers only by default; the option switches", {
  expect_private_default(dp_scree)
  expect_private_default(dp_scree_plot)
  skip_if_no_dppca()
  X <- gau_small(400)
  run <- function() dp_scree(X, 2, c("clipped", "huber"), eps = 2, delta = 1e-5,
                             g_dppca = TRUE, seed = 5)
  res <- run()
  expect_identical(names(res), c("clipped", "huber"))
  expect_error(res$nonprivate, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_private_only(res)
  switched <- with_nonprivate_option(run())
  expect_null(getOption("dppcapy.nonprivate"))
  expect_identical(names(switched), c("nonprivate", "clipped", "huber"))
  expect_match(attr(switched, "summary"), "NON-PRIVATE", fixed = TRUE)
  # The reference is computed beside the private releases, not from them: same numbers.
  expect_identical(switched$clipped, res$clipped)
  # The plot of the default call draws the private series only and returns the same value.
  for (type in c("pve", "scree")) {
    plotted <- quietly_plotted(dp_scree_plot(X, 2, c("clipped", "huber"), eps = 2,
                                             delta = 1e-5, g_dppca = TRUE, type = type,
                                             seed = 5))
    expect_identical(plotted, res)
  }
})
