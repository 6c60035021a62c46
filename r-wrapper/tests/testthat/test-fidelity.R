# Issue 11: the R package's documented code runs unchanged on dppcapy.

test_that("11.1 integer-valued arguments take whole doubles and refuse 50.5 with an R error", {
  skip_if_no_dppca()
  h <- huber_control(T = 50, M = 20)
  expect_identical(h$T, 50)   # kept as the user wrote it, as in 'dppca'
  expect_identical(huber_control(T = 50L, M = 20L)$T, 50L)
  expect_error(huber_control(T = 50.5), "`T` must be a whole number", class = "dppca_value_error")
  expect_error(huber_control(M = 20.5), "`M` must be a whole number", class = "dppca_value_error")
  expect_error(huber_control(k_min_m2 = -1.5, k_max_m2 = 3), "`k_min_m2`", class = "dppca_value_error")
  expect_error(huber_control(T = "50"), "`T` must be a whole number", class = "dppca_type_error")
  X <- gau_small(300)
  res <- dp_scree(X, 2, "huber", control = huber_control(T = 5, M = 8), eps = 2, delta = 1e-5,
                  seed = 1)
  expect_length(res$huber$scree, 2)
  named <- dp_scree(X, 2, c("clipped", "huber"), control = list(huber = list(T = 5, M = 8)),
                    eps = 2, delta = 1e-5, seed = 1)
  expect_length(named$huber$scree, 2)
  expect_error(dp_pc_dir(X, k = 2.5), "`k` must be a whole number", class = "dppca_value_error")
  expect_error(dp_scree(X, k = 1.5, eps = 1, delta = 1e-5), "`k`", class = "dppca_value_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, bins = c(5, 5.5)), "`bins`",
               class = "dppca_value_error")
  expect_error(dp_score(X, eps = 1, delta = 1e-4, axes = c(1, 2.5)), "`axes`",
               class = "dppca_value_error")
  expect_error(sampling_control(sample_size = 10.5), "`sample_size`", class = "dppca_value_error")
  expect_error(score_plot_control(group_ncol = 2.5), "`group_ncol`", class = "dppca_value_error")
  expect_identical(ncol(dp_pc_dir(X, k = 2)), 2L)
})

test_that("11.3 withheld NON-PRIVATE elements are R errors naming nonprivate = TRUE", {
  skip_if_no_dppca()
  X <- gau_small(300)
  sc <- dp_score(X, eps = 2, delta = 1e-4, bins = 5, method = "add", seed = 1)
  expect_error(sc$score, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_error(sc[["nonprivate"]], "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_null(sc$sparse)   # not asked for: NULL as for any list
  expect_s3_class(sc$add, "data.frame")
  expect_identical(sc[[1]], sc$frame)
  S <- dp_scree(X, 2, eps = 2, delta = 1e-5, seed = 1)
  expect_error(S$nonprivate, "nonprivate = TRUE", class = "dppca_withheld_error")
  p <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 5, method = "add",
                                     private_plot = "histogram", seed = 1))
  expect_error(p$plot$scatter, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_error(p$plot[["nonprivate"]], "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_s3_class(p$plot$add, "ggplot")
  full <- dp_score(X, eps = 2, delta = 1e-4, bins = 5, method = "add", seed = 1, nonprivate = TRUE)
  expect_identical(dim(full$score), c(300L, 2L))
  # nested: a group's entry and the samples withhold their NON-PRIVATE element too
  G <- gau_g[seq(1, 5000, by = 10), ]
  G$group <- factor(G$group)
  g <- dp_score_group(G, "group", eps = 2, delta = 1e-4, bins = 5, method = "add", seed = 1)
  expect_error(g$groups$group1$nonprivate, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_s3_class(g$groups$group1$add, "data.frame")
  sp <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 5, method = "add",
                                      private_plot = "sample", seed = 1))
  expect_error(sp$sample$nonprivate, "nonprivate = TRUE", class = "dppca_withheld_error")
  expect_s3_class(sp$sample$add$uniform, "data.frame")
})

test_that("11.4 an R function as xi runs (on the main thread) and its bound is enforced", {
  skip_if_no_dppca()
  X <- gau_small(300)
  calls <- 0L
  xi <- function(s) {
    calls <<- calls + 1L
    pmin(s, 2)
  }
  V <- dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, xi = xi, xi_bound = 2, seed = 1)
  expect_gt(calls, 0L)
  # xi(s) = min(s, 2) is the winsorized sign at radius 2: the same release.
  W <- dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, sign = "winsorized", radius = 2, seed = 1)
  expect_equal(abs(colSums(as.matrix(V) * as.matrix(W))), c(PC1 = 1, PC2 = 1), tolerance = 1e-8)
  expect_equal(dp_ledger(V)$sensitivity, dp_ledger(W)$sensitivity)
})

test_that("11.5 noise = 'r_dppca' gives the R package's sigma; the default is tighter", {
  skip_if_no_dppca()
  X <- gau_small(300)
  R <- dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, noise = "r_dppca", seed = 1)
  ledger <- dp_ledger(R)
  expect_equal(ledger$noise_scale, 4 * sqrt(2 * log(1.25 / 1e-5)) / (300 * 1), tolerance = 1e-12)
  expect_identical(ledger$mechanism, "Gaussian (classic)")
  tight <- dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, calibration = "classic", seed = 1)
  # sqrt(2) up to the tight constant's floating-point slack rho (the tight sigma carries 1 + rho):
  # dppca.stats.kendall.rounding_slack(n, p), 5.9e-6 at n = 300, p = 20 (pair terms and their sum)
  rho <- reticulate::import("dppca.stats.kendall")$rounding_slack(nrow(X), ncol(X))
  expect_equal(ledger$noise_scale / dp_ledger(tight)$noise_scale, sqrt(2) / (1 + rho), tolerance = 1e-9)
  expect_true(rho > 0 && rho < 1e-4)
  expect_error(dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, noise = "loud"), "`noise`",
               class = "dppca_error")
  expect_identical(formals(dp_scree)$noise, "tight")
  expect_identical(formals(dp_score_plot_group)$noise, "tight")
})

test_that("11.6 print() shows the matrix and a privacy line; summary() the whole summary", {
  skip_if_no_dppca()
  V <- dp_pc_dir(gau_small(300), k = 2)
  text <- capture.output(print(V))
  expect_identical(head(text, -1), capture.output(print(as.matrix(V))))
  expect_match(tail(text, 1), "NON-PRIVATE directions", fixed = TRUE)
  expect_gt(length(capture.output(summary(V))), length(text))   # the full summary
})

test_that("11.7 plot() methods draw ggplots; as.data.frame() for ledgers and scree", {
  skip_if_no_dppca()
  X <- gau_small(400)
  V <- dp_pc_dir(X, k = 2, eps = 1, delta = 1e-5, seed = 1)
  pv <- plot(V)
  expect_s3_class(pv, "ggplot")
  expect_match(pv$labels$title, "private, eps = 1, delta = 1e-05", fixed = TRUE)
  expect_identical(levels(pv$data$component), c("PC1", "PC2"))
  S <- dp_scree(X, 3, c("clipped", "pmwm"), eps = 2, delta = 1e-5, seed = 1, nonprivate = TRUE)
  long <- as.data.frame(S)
  expect_identical(names(long), c("series", "component", "scree", "pve", "lower", "upper"))
  expect_identical(nrow(long), 9L)
  expect_equal(long$scree[long$series == "pmwm"], unname(S$pmwm$scree))
  expect_true(all(is.na(long$lower[long$series == "nonprivate"])))
  ps <- plot(S, type = "scree")
  expect_s3_class(ps, "ggplot")
  expect_identical(ps$labels$y, "Scree value (95% noise interval)")
  expect_true(any(vapply(ps$layers, function(l) inherits(l$geom, "GeomErrorbar"), logical(1))))
  expect_identical(levels(ps$data$series), c("NON-PRIVATE", "clipped", "pmwm"))
  built <- ggplot2::ggplot_build(plot(S))   # PVE: the y axis includes 0
  expect_lte(built$layout$panel_params[[1]]$y.range[1], 0)
  ledger <- as.data.frame(dp_ledger(V))
  expect_identical(class(ledger), "data.frame")
  expect_identical(names(ledger), c("step", "mechanism", "sensitivity", "norm", "noise_scale",
                                    "eps", "delta"))
  H <- dp_score(X, eps = 2, delta = 1e-4, bins = 6, method = "add", seed = 1)
  ph <- plot(H)
  expect_s3_class(ph, "patchwork")
  expect_match(ph$patches$annotation$title, "private, eps = 2", fixed = TRUE)
})

test_that("10.5 score panels: colour bar meaning, data/standardized units, group legend by default", {
  skip_if_no_dppca()
  X <- gau_small(400)
  p <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 6, method = "add",
                                     private_plot = "histogram", seed = 1))
  add <- p$plot$add
  expect_identical(p$plot$all$patches$annotation$title,
                   "Score plot: private, eps = 2, delta = 1e-04")
  expect_identical(dppcapy:::.scree_ylim(c(2, 5), "scree")[1], 0)
  expect_identical(add$labels$x, "PC1 score (data units)")
  expect_identical(add$labels$y, "PC2 score (data units)")
  fill <- add$scales$get_scales("fill")
  expect_identical(fill$name, "probability\nper cell")
  expect_s3_class(fill$guide, "guide")
  expect_identical(add$theme$legend.position, "right")
  scaled <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 6, method = "add",
                                          private_plot = "histogram", seed = 1,
                                          standardize = TRUE, g_dppca = FALSE))
  expect_match(scaled$plot$add$labels$x, "standardized units", fixed = TRUE)
  expect_true(score_plot_control()$show_group_legend)
  G <- gau_g[seq(1, 5000, by = 10), ]
  G$group <- factor(G$group)  # declared labels (a factor's levels are the public domain)
  g <- quietly_plotted(dp_score_plot_group(G, "group", eps = 2, delta = 1e-4, bins = 5,
                                           method = "add", private_plot = "histogram", seed = 1))
  expect_identical(g$plot$add$theme$legend.position, "right")
  expect_identical(g$plot$add$scales$get_scales("fill")$name, "Group")
  expect_identical(g$plot$add$scales$get_scales("alpha")$name, "share of all\nrows per cell")
})

test_that("9.3 every function with a budget is private by default", {
  for (f in list(dp_scree, dp_scree_plot, dp_score, dp_score_group, dp_score_plot,
                 dp_score_plot_group)) {
    expect_true(formals(f)$g_dppca)
  }
  skip_if_no_dppca()
  X <- gau_small(300)
  expect_false(is.null(dp_ledger(dp_pc_dir(X, 2, eps = 1, delta = 1e-5, seed = 1))))
  S <- dp_scree(X, 2, eps = 1, delta = 1e-5, seed = 1)
  expect_true(attr(S, "private"))
  # the first release fills missing cells with private medians (missing = "auto"); the
  # directions' release follows
  expect_true(any(startsWith(dp_ledger(S)$step, "directions")))
  expect_true(attr(dp_score(X, eps = 1, delta = 1e-4, bins = 4, method = "add", seed = 1), "private"))
})

test_that("9.2 factor levels are the public group domain (passed as levels= when Python has it)", {
  skip_if_no_dppca()
  G <- gau_g[seq(1, 5000, by = 10), ]
  labels <- factor(G$group, levels = c(paste0("group", 5:1), "unused"))
  data <- dppcapy:::.grouped_data(G[, 1:20], labels)
  expect_identical(levels(data[[dppcapy:::.group_column]]), levels(labels))
  expect_identical(dppcapy:::.group_levels(G[, 1:20], labels), levels(labels))
  G$group <- labels
  expect_identical(dppcapy:::.group_levels(G, "group"), levels(labels))
  expect_null(dppcapy:::.group_levels(G, G$group == "group1"))
  plain <- dppcapy:::.grouped_data(G[, 1:20], as.character(labels))
  expect_type(plain[[dppcapy:::.group_column]], "character")   # no domain read off the data
  res <- dp_score_group(G, "group", eps = 2, delta = 1e-4, bins = 4, method = "add", seed = 1)
  released <- names(res$groups)
  if (dppcapy:::.py_accepts(dppcapy:::.py()$dp_score_group, "levels")) {
    expect_identical(released, levels(labels))   # the unused level too, with a noisy histogram
  } else {
    expect_identical(released, paste0("group", 5:1))   # level order; unused dropped by old cores
  }
})

test_that("11.8 version handshake and dppca_config()", {
  expect_null(dppcapy:::.version_problem("0.1.0"))
  expect_match(dppcapy:::.version_problem("0.0.9"), "needs the Python package 'dppca' >= 0.1.0",
               fixed = TRUE)
  expect_match(dppcapy:::.version_problem("1.2.0"), "< 1.0.0", fixed = TRUE)
  expect_match(dppcapy:::.version_problem("garbage"), "install_dppca()", fixed = TRUE)
  description <- utils::packageDescription("dppcapy")
  expect_match(description[["Config/reticulate"]], "package = \"dppca\"", fixed = TRUE)
  skip_if_no_dppca()
  config <- dppca_config()
  expect_s3_class(config, "dppca_config")
  expect_true(config$available)
  expect_null(config$error)
  expect_identical(config$dppca_version, dppcapy:::.python_version())
  expect_identical(config$python, reticulate::py_exe())
  expect_output(print(config), "Python package 'dppca' available")
})

test_that("11.9 structure parity: score row names, sample_size double, mu0 documented", {
  skip_if_no_dppca()
  X <- gau_small(300)
  res <- dp_score(X, eps = 2, delta = 1e-4, bins = 4, method = "add", seed = 1, nonprivate = TRUE)
  # as 'dppca' (score = as.matrix(X) %*% V): gau[1:300, ] keeps "1".."300" (issue 24)
  expect_identical(rownames(res$score), rownames(as.matrix(X)))
  expect_identical(rownames(res$score), as.character(1:300))
  shuffled <- X[c(300:201, 1:200), ]
  moved <- dp_score(shuffled, eps = 2, delta = 1e-4, bins = 4, method = "add", seed = 1,
                    nonprivate = TRUE)
  expect_identical(rownames(moved$score), as.character(c(300:201, 1:200)))
  m <- as.matrix(X)
  rownames(m) <- paste0("r", 1:300)
  expect_identical(rownames(dp_score(m, eps = 2, delta = 1e-4, bins = 4, method = "add", seed = 1,
                                     nonprivate = TRUE)$score), paste0("r", 1:300))
  plain <- gau[1:300, ]
  row.names(plain) <- NULL   # automatic row names: as.matrix() gives none
  expect_null(rownames(dp_score(plain, eps = 2, delta = 1e-4, bins = 4, method = "add",
                                seed = 1, nonprivate = TRUE)$score))
  G <- gau_g[seq(2, 5000, by = 10), ]
  G$group <- factor(G$group)   # declared levels: no partition selection at this budget
  grouped <- dp_score_group(G, "group", eps = 2, delta = 1e-4, bins = 4, method = "add",
                            seed = 1, nonprivate = TRUE)
  expect_identical(rownames(grouped$score), row.names(G))
  expect_type(sampling_control(sample_size = 100)$sample_size, "double")
  expect_null(formals(huber_control)$mu0)   # deliberate: a private median start (see the table)
  # The table of deliberate differences is a help page (and in README.md).
  source_rd <- testthat::test_path("..", "..", "man", "dppcapy-differences.Rd")
  installed <- tryCatch(names(tools::Rd_db("dppcapy")), error = function(e) character(0))
  expect_true(file.exists(source_rd) || "dppcapy-differences.Rd" %in% installed)
})

test_that("11.8 a version mismatch found when Python loads is an R error saying what to do", {
  skip_if_no_dppca()
  state <- dppcapy:::.state
  old <- list(ready = state$ready, problem = state$version_problem)
  on.exit({
    state$ready <- old$ready
    state$version_problem <- old$problem
  })
  state$ready <- FALSE
  state$version_problem <- dppcapy:::.version_problem("0.0.1")
  expect_false(dppca_available())
  expect_error(dp_pc_dir(gau_small(50), 2), "needs the Python package 'dppca' >= 0.1.0",
               class = "dppca_python_version")
  config <- dppca_config()
  expect_false(config$available)
  expect_match(config$error, "has 0.0.1", fixed = TRUE)
  expect_output(print(config), "NOT available")
})
