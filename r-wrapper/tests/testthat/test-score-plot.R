test_that("sampling_control returns the R package's list", {
  skip_if_no_dppca()
  ctrl <- sampling_control()
  expect_s3_class(ctrl, c("dppca_sampling_control", "list"), exact = TRUE)
  expect_identical(names(ctrl), c("method", "sample_size", "bandwidth_scale"))
  expect_identical(ctrl$method, "uniform")
  expect_null(ctrl$sample_size)
  expect_identical(ctrl$bandwidth_scale, c(uniform = 0.25))
  both <- sampling_control(c("c", "u"), sample_size = 50, bandwidth_scale = c(center = 1, uniform = 0))
  expect_identical(both$method, c("center", "uniform"))
  expect_identical(both$sample_size, 50)   # a double, as in 'dppca'
  expect_identical(sampling_control(sample_size = 50L)$sample_size, 50)
  expect_identical(both$bandwidth_scale, c(center = 1, uniform = 0))
  expect_error(sampling_control("gaussian"), "`method`", class = "dppca_error")
  expect_error(sampling_control(sample_size = 0), "`sample_size`", class = "dppca_error")
  expect_error(sampling_control(bandwidth_scale = -1), "`bandwidth_scale`", class = "dppca_error")
})

test_that("score_plot_control has the R package's 15 settings and checks them", {
  ctrl <- score_plot_control()
  expect_identical(names(ctrl), c("color", "scatter_alpha", "scatter_size", "hist_alpha_range",
                                  "base_size", "title_size", "scatter_title", "nonprivate_title",
                                  "add_title", "sparse_title", "xlab", "ylab", "group_colors",
                                  "group_ncol", "show_group_legend"))
  expect_identical(ctrl$color, "#6A5ACD")
  expect_identical(ctrl$group_ncol, 3L)
  expect_error(score_plot_control(color = "nonsense"), "`color`", class = "dppca_error")
  expect_error(score_plot_control(scatter_alpha = 2), "`scatter_alpha`", class = "dppca_error")
  expect_error(score_plot_control(hist_alpha_range = c(1, 0)), "`hist_alpha_range`",
               class = "dppca_error")
  expect_error(score_plot_control(add_title = 3), "`add_title`", class = "dppca_error")
  expect_error(score_plot_control(group_colors = c("red", "nope")), "`group_colors`",
               class = "dppca_error")
  expect_error(score_plot_control(show_group_legend = NA), "`show_group_legend`",
               class = "dppca_error")
})

test_that("dp_score_plot returns score, sample and plot panels as the R package does", {
  skip_if_no_dppca()
  X <- gau_small(300)
  res <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = c(6, 6), seed = 1,
                                       nonprivate = TRUE))
  expect_identical(names(res), c("score", "sample", "plot"))
  expect_identical(names(res$score), c("score", "frame", "nonprivate", "add", "sparse"))
  expect_identical(names(res$sample), c("nonprivate", "add", "sparse"))
  expect_identical(names(res$sample$add), "uniform")
  expect_identical(names(res$sample$add$uniform), c("pc_x", "pc_y"))
  expect_identical(nrow(res$sample$add$uniform), 300L)
  expect_identical(names(res$plot), c("scatter", "nonprivate", "add", "sparse", "sample", "all"))
  expect_s3_class(res$plot$scatter, "ggplot")
  expect_s3_class(res$plot$sample$sparse$uniform, "ggplot")
  expect_s3_class(res$plot$all, "patchwork")
  hist_only <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 5, method = "add",
                                             private_plot = "histogram", seed = 1,
                                             nonprivate = TRUE))
  expect_identical(names(hist_only), c("score", "plot"))
  expect_identical(names(hist_only$plot), c("scatter", "nonprivate", "add", "all"))
  custom <- quietly_plotted(dp_score_plot(
    X, eps = 2, delta = 1e-4, bins = 5, method = "sparse", private_plot = "sample",
    sampling_control = sampling_control(c("uniform", "center"), sample_size = 40),
    plot_control = list(color = "darkgreen", xlab = "first"), seed = 1, nonprivate = TRUE))
  expect_identical(names(custom$sample$sparse), c("uniform", "center"))
  expect_identical(nrow(custom$sample$nonprivate$center), 40L)
  expect_identical(custom$plot$scatter$labels$x, "first")
})

test_that("dp_score_plot_group returns group-coloured panels and the colour map", {
  skip_if_no_dppca()
  X <- gau_g[seq(1, 5000, by = 10), ]
  X$group <- factor(X$group)  # declared labels: 100 rows a group is below partition selection's bar
  res <- quietly_plotted(dp_score_plot_group(X, "group", eps = 2, delta = 1e-4, bins = 6,
                                             method = "add", seed = 1, nonprivate = TRUE))
  expect_identical(names(res), c("score", "sample", "plot", "group_colors"))
  expect_identical(names(res$score), c("score", "frame", "groups"))
  expect_identical(names(res$group_colors), paste0("group", 1:5))
  expect_identical(unname(res$group_colors), grDevices::hcl.colors(5, "Dark 3"))
  sample <- res$sample$add$uniform
  expect_identical(names(sample), c("pc_x", "pc_y", "group"))
  expect_identical(levels(sample$group), paste0("group", 1:5))
  expect_identical(nrow(sample), 500L)
  expect_identical(names(res$plot), c("scatter", "nonprivate", "add", "sample", "all"))
  given <- quietly_plotted(dp_score_plot_group(
    X, "group", eps = 2, delta = 1e-4, bins = 6, method = "add", private_plot = "histogram",
    plot_control = list(group_colors = c(group2 = "black")), seed = 1, nonprivate = FALSE))
  expect_identical(given$group_colors[["group2"]], "black")
  expect_identical(names(given$plot), c("add", "all"))
})

test_that("score plots: set.seed() reproduces samples; bad input gives R errors", {
  skip_if_no_dppca()
  X <- gau_small(200)
  set.seed(9); a <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 5, method = "add"))
  set.seed(9); b <- quietly_plotted(dp_score_plot(X, eps = 2, delta = 1e-4, bins = 5, method = "add"))
  expect_identical(a$sample, b$sample)
  expect_identical(a$score, b$score)
  expect_error(dp_score_plot(X, eps = 1, delta = 1e-4, private_plot = "pie"), "`private_plot`",
               class = "dppca_error")
  expect_error(dp_score_plot(X, eps = 1, delta = 1e-4, method = "add",
                             plot_control = list(colour = "red")),
               "unknown settings colour", class = "dppca_error")
  expect_error(dp_score_plot(X, eps = 1, delta = 1e-4, sampling_control = list(method = "x")),
               "`method`", class = "dppca_error")
  expect_error(dp_score_plot_group(gau_g[1:100, ], "nope", eps = 1, delta = 1e-4),
               "no column", class = "dppca_error")
})

test_that("score plots draw private panels only by default; nonprivate = TRUE adds the NON-PRIVATE ones", {
  expect_private_default(dp_score_plot)
  expect_private_default(dp_score_plot_group)
  skip_if_no_dppca()
  titles_of <- function(plot) {
    panels <- c(plot[setdiff(names(plot), c("sample", "all"))],
                unlist(plot$sample, recursive = FALSE))
    vapply(panels, function(p) p$labels$title, character(1))
  }
  res <- quietly_plotted(dp_score_plot(gau_small(300), eps = 2, delta = 1e-4, bins = 6,
                                       g_dppca = TRUE, seed = 1))
  expect_private_only(res$score)
  expect_identical(names(res$sample), c("add", "sparse"))
  expect_identical(names(res$plot), c("add", "sparse", "sample", "all"))
  expect_identical(names(res$plot$sample), c("add", "sparse"))
  expect_s3_class(res$plot$all, "patchwork")
  expect_false(any(grepl("Non-private", titles_of(res$plot), ignore.case = TRUE)))
  G <- gau_g[seq(1, 5000, by = 10), ]
  G$group <- factor(G$group)  # declared labels (a factor's levels are the public domain)
  run_group <- function() dp_score_plot_group(G, "group", eps = 2, delta = 1e-4, bins = 6,
                                              method = "add", g_dppca = TRUE, seed = 1)
  grouped <- quietly_plotted(run_group())
  expect_private_only(grouped$score)
  expect_identical(names(grouped$plot), c("add", "sample", "all"))
  expect_identical(levels(grouped$sample$add$uniform$group), paste0("group", 1:5))
  expect_false(any(grepl("Non-private", titles_of(grouped$plot), ignore.case = TRUE)))
  switched <- quietly_plotted(with_nonprivate_option(run_group()))
  expect_identical(names(switched$plot), c("scatter", "nonprivate", "add", "sample", "all"))
  expect_identical(names(switched$sample), c("nonprivate", "add"))
  expect_true(any(grepl("NON-PRIVATE", titles_of(switched$plot))))
  expect_identical(switched$score$groups$group1$add, grouped$score$groups$group1$add)
})
