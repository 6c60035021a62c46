#' Private score plots
#'
#' [dp_score()] plus synthetic samples and the panel grid of `dppca::dp_score_plot()`,
#' drawn in R with 'ggplot2' and assembled with 'patchwork': the NON-PRIVATE scatter,
#' histogram and samples (only when `nonprivate = TRUE`), the private histograms, and one
#' row of synthetic samples per sampling method. By default only private panels are drawn;
#' `nonprivate = TRUE` gives 'dppca''s full grid and return structure.
#' Sampling is post-processing of the released histograms (no extra budget).
#'
#' @inheritParams dp_score
#' @param private_plot `"histogram"`, `"sample"` or both (the default): the rows of the
#'   grid.
#' @param sampling_control `NULL` or [sampling_control()] settings.
#' @param plot_control `NULL` or [score_plot_control()] settings (a named list).
#' @return Invisibly, a list as in 'dppca': `score` (the [dp_score()] value), `sample`
#'   (when requested: target -> sampling method -> data frame `pc_x`, `pc_y`) and `plot`:
#'   the ggplot panels `scatter`, `nonprivate`, `add`, `sparse` (those computed;
#'   `scatter`, `nonprivate` and the `nonprivate` samples only when `nonprivate = TRUE`),
#'   `sample` (target -> sampling method -> panel) and `all` (the patchwork, printed).
#' @examples
#' if (dppca_available()) {
#'   res <- dp_score_plot(gau[1:1000, ], eps = 2, delta = 1e-4, bins = c(12, 12),
#'                        method = "add", seed = 1)
#'   names(res$plot)
#' }
#' @export
dp_score_plot <- function(X, eps, delta, bins = NULL, method = c("add", "sparse"),
                          private_plot = c("histogram", "sample"), sampling_control = NULL,
                          center = TRUE, standardize = FALSE, g_dppca = TRUE,
                          cpp.option = FALSE, axes = c(1, 2), plot_control = NULL, seed = NULL,
                          calibration = "analytic", noise = "tight",
                          nonprivate = getOption("dppcapy.nonprivate", FALSE), budget = NULL,
                          bounds = NULL, scale = NULL, missing = "auto",
                          neighbouring = c("replace", "add_remove")) {
  .score_plot_call(X, NULL, eps, delta, bins, method, private_plot, sampling_control, center,
                   standardize, g_dppca, cpp.option, axes, plot_control, seed, calibration,
                   nonprivate, noise, budget, .declared_args(bounds, scale), missing,
                   neighbouring)
}

#' Private score plots per group
#'
#' [dp_score_group()] plus synthetic samples and the grouped panel grid of
#' `dppca::dp_score_plot_group()` (points and bins coloured by group; one shared frame).
#' Grouped histogram panels shade each bin by its share of the whole mixture (the
#' probability within the group times the group's private size share). Synthetic points
#' are allocated to the groups in proportion to their private size estimates.
#'
#' @inheritParams dp_score_group
#' @inheritParams dp_score_plot
#' @return Invisibly, the list of [dp_score_plot()] (with `score` from
#'   [dp_score_group()] and a `group` column in each sample) plus `group_colors`, the
#'   named colour of each group.
#' @examples
#' if (dppca_available()) {
#'   res <- dp_score_plot_group(gau_g[seq(1, 5000, 5), ], "group", eps = 2, delta = 1e-4,
#'                              bins = c(12, 12), method = "add", seed = 1)
#'   res$group_colors
#' }
#' @export
dp_score_plot_group <- function(X, group, eps, delta, bins = NULL, center = TRUE,
                                standardize = FALSE, g_dppca = TRUE, cpp.option = FALSE,
                                axes = c(1, 2), method = c("add", "sparse"),
                                private_plot = c("histogram", "sample"),
                                sampling_control = NULL, plot_control = NULL, seed = NULL,
                                calibration = "analytic", noise = "tight",
                                nonprivate = getOption("dppcapy.nonprivate", FALSE),
                                budget = NULL, bounds = NULL, scale = NULL,
                                missing = "auto", neighbouring = c("replace", "add_remove")) {
  .score_plot_call(X, group, eps, delta, bins, method, private_plot, sampling_control, center,
                   standardize, g_dppca, cpp.option, axes, plot_control, seed, calibration,
                   nonprivate, noise, budget, .declared_args(bounds, scale), missing,
                   neighbouring)
}

# Both score-plot functions: check the plot settings before any private computation, run
# dp_score (group = NULL) or dp_score_group, draw, print the grid, return the list.
.score_plot_call <- function(X, group, eps, delta, bins, method, private_plot, sampling_control,
                             center, standardize, g_dppca, cpp.option, axes, plot_control, seed,
                             calibration, nonprivate, noise = "tight", budget = NULL,
                             declared = list(), missing = "auto", neighbouring = "replace") {
  plots <- .match_choices(private_plot, c("histogram", "sample"), "private_plot")
  pctrl <- .merge_score_plot_control(plot_control)
  sampling <- if ("sample" %in% plots) .py_sampling_control(sampling_control)
  result <- .py_score(X, group, eps, delta, bins, method, center, standardize, g_dppca,
                      cpp.option, axes, seed, calibration, nonprivate, noise, budget, declared,
                      missing, neighbouring)
  score <- .score_value(result, X)
  grouping <- if (!is.null(group)) .grouping(score, X, group, pctrl)
  out <- .score_plot(result, score, plots, sampling, pctrl, axes, grouping)
  if (!is.null(grouping)) out$group_colors <- grouping$colours
  print(out$plot$all)
  invisible(out)
}

# Group levels (in 'dppca''s order), each row's label, and the colour of each group.
.grouping <- function(score, X, group, pctrl) {
  levels <- names(score$groups)
  labels <- if (is.character(group) && length(group) == 1L) {
    .as_py_data(X, nan = FALSE)[[group]]
  } else group
  list(levels = levels, labels = factor(as.character(labels), levels = levels),
       colours = .group_colours(levels, pctrl$group_colors))
}

utils::globalVariables(c("xmin", "xmax", "ymin", "ymax", "pc_x", "pc_y", "group", "alpha",
                         "prob", "weight"))

# Samples and panels of a ScoreResult; `sampling` is the Python SamplingControl (NULL
# without samples), `grouping` NULL or list(levels, labels, colours).
.score_plot <- function(result, score, plots, sampling, pctrl, axes, grouping = NULL) {
  targets <- intersect(c("nonprivate", "add", "sparse"), names(.histograms_of(score)))
  out <- list(score = score)
  if ("sample" %in% plots) {
    .invoke(result$draw_samples, sampling)
    out$sample <- .from_py_samples(result, grouping)
  }
  look <- .look(score, pctrl, grouping, axes)
  panels <- list()
  if ("score" %in% names(score)) panels$scatter <- .scatter_panel(.subset2(score, "score"), look)
  for (target in targets) panels[[target]] <- .hist_panel(score, target, look)
  if (!is.null(out$sample)) {
    panels$sample <- lapply(stats::setNames(names(out$sample), names(out$sample)), function(t) {
      lapply(stats::setNames(names(out$sample[[t]]), names(out$sample[[t]])), function(sm) {
        .points_panel(out$sample[[t]][[sm]], look, .sample_title(t, sm))
      })
    })
  }
  collect <- !is.null(grouping) && isTRUE(pctrl$show_group_legend)
  panels$all <- .layout(panels, targets, plots, isTRUE(attr(score, "private")), collect,
                        title = paste("Score plot:", .budget_text(score)))
  out$plot <- structure(panels, class = c("dppca_panels", "list"))
  structure(out, class = c("dppca_score_plot", "list"))
}

#' @rdname dp_score_plot
#' @param x A value of [dp_score_plot()] or [dp_score_plot_group()].
#' @param ... Unused.
#' @export
print.dppca_score_plot <- function(x, ...) {
  print(x$plot$all)
  invisible(x)
}

# What every panel shares: settings, frame, groups, and axis labels (the result's, which say
# "standardized units" when the data were scaled, unless the user set xlab/ylab).
.look <- function(score, pctrl, grouping, axes) {
  labels <- attr(score, "axis_labels") %||% paste0("PC", axes)
  list(pctrl = pctrl, frame = score$frame, grouping = grouping,
       labs = c(pctrl$xlab %||% labels[1], pctrl$ylab %||% labels[2]))
}

.histograms_of <- function(score) if (is.null(score$groups)) score else score$groups[[1]]

.from_py_samples <- function(result, grouping) {
  sample <- .as_r(.call(.py("bridge")$samples_payload(result)))
  if (is.null(grouping)) return(sample)
  lapply(sample, lapply, function(df) {
    df$group <- factor(df$group, levels = grouping$levels)
    df
  })
}

.sample_title <- function(target, sm) {
  who <- c(nonprivate = "NON-PRIVATE", add = "Add", sparse = "Sparse")[[target]]
  paste0(who, " Sample (", c(center = "Center", uniform = "Uniform")[[sm]], ")")
}

.panel_title <- function(pctrl, target) pctrl[[paste0(target, "_title")]]

.scatter_panel <- function(scores, look) {
  points <- data.frame(pc_x = scores[, 1], pc_y = scores[, 2])
  if (!is.null(look$grouping)) points$group <- look$grouping$labels
  .points_panel(points, look, look$pctrl$scatter_title)
}

.points_panel <- function(points, look, title) {
  pctrl <- look$pctrl
  if (is.null(look$grouping)) {
    layer <- ggplot2::geom_point(ggplot2::aes(pc_x, pc_y), data = points, colour = pctrl$color,
                                 alpha = pctrl$scatter_alpha, size = pctrl$scatter_size)
    colours <- NULL
  } else {
    layer <- ggplot2::geom_point(ggplot2::aes(pc_x, pc_y, colour = group), data = points,
                                 alpha = pctrl$scatter_alpha, size = pctrl$scatter_size)
    colours <- ggplot2::scale_colour_manual(values = look$grouping$colours, drop = FALSE,
                                            name = "Group")
  }
  ggplot2::ggplot() + layer + colours + .panel_style(look, title)
}

# Bins shaded by probability per cell, with a colour bar saying so: from the colour at
# opacity a1 (empty) to opacity a2 (the fullest bin). Grouped panels colour each bin by
# its group and set its opacity by the probability within the group times the group's
# private size share (the share of all rows in the cell), with a legend saying so.
.hist_panel <- function(score, target, look) {
  pctrl <- look$pctrl
  range <- pctrl$hist_alpha_range
  if (is.null(look$grouping)) {
    bins <- score[[target]]
    bins$prob[!is.finite(bins$prob) | bins$prob < 0] <- 0
    top <- max(bins$prob, .Machine$double.eps)
    plot <- ggplot2::ggplot(bins) +
      ggplot2::geom_rect(ggplot2::aes(xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax,
                                      fill = prob), colour = NA) +
      ggplot2::scale_fill_gradient(low = ggplot2::alpha(pctrl$color, range[1]),
                                   high = ggplot2::alpha(pctrl$color, range[2]),
                                   limits = c(0, top), name = "probability\nper cell",
                                   guide = ggplot2::guide_colourbar())
    return(plot + .panel_style(look, .panel_title(pctrl, target), legend = "right"))
  }
  sizes <- vapply(score$groups, function(g) as.double(g$n), numeric(1))
  share <- if (sum(sizes) > 0) sizes / sum(sizes) else rep(1 / length(sizes), length(sizes))
  names(share) <- names(score$groups)
  bins <- do.call(rbind, lapply(names(score$groups), function(g) {
    cbind(score$groups[[g]][[target]], group = g, share = share[[g]])
  }))
  bins$group <- factor(bins$group, levels = look$grouping$levels)
  weight <- bins$prob * bins$share
  weight[!is.finite(weight) | weight < 0] <- 0
  bins$weight <- weight
  plot <- ggplot2::ggplot(bins) +
    ggplot2::geom_rect(ggplot2::aes(xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax,
                                    alpha = weight, fill = group), colour = NA) +
    ggplot2::scale_alpha_continuous(range = range, limits = c(0, max(weight, .Machine$double.eps)),
                                    name = "share of all\nrows per cell") +
    ggplot2::scale_fill_manual(values = look$grouping$colours, drop = FALSE, name = "Group")
  legend <- if (isTRUE(pctrl$show_group_legend)) "right" else "none"
  plot + .panel_style(look, .panel_title(pctrl, target), legend = legend)
}

.panel_style <- function(look, title, legend = NULL) {
  pctrl <- look$pctrl
  legend <- legend %||% if (!is.null(look$grouping) && isTRUE(pctrl$show_group_legend)) "right" else "none"
  list(ggplot2::coord_fixed(xlim = look$frame$xlim, ylim = look$frame$ylim, expand = FALSE),
       ggplot2::labs(x = look$labs[1], y = look$labs[2], title = title),
       ggplot2::theme_minimal(base_size = pctrl$base_size),
       ggplot2::theme(legend.position = legend,
                      panel.border = ggplot2::element_rect(colour = "black", fill = NA,
                                                           linewidth = 0.5),
                      plot.margin = ggplot2::margin(2, 2, 2, 2, "pt"),
                      plot.title = ggplot2::element_text(hjust = 0.5, face = "bold",
                                                         size = pctrl$title_size)))
}

# 'dppca''s grid: one histogram row, then one row per sampling method; the NON-PRIVATE
# scatter in the first column (top left, or first sample row when samples are shown).
.layout <- function(panels, targets, plots, private, collect, title = NULL) {
  spacer <- patchwork::plot_spacer()
  methods <- setdiff(targets, "nonprivate")
  np <- "nonprivate" %in% targets
  rows <- list()
  if ("histogram" %in% plots) {
    lead <- if (np) list(if ("sample" %in% plots) spacer else panels$scatter, panels$nonprivate)
    rows <- c(rows, lead, panels[methods])
  }
  if ("sample" %in% plots) {
    sms <- names(panels$sample[[1]])
    for (i in seq_along(sms)) {
      lead <- if (np) list(if (i == 1L) panels$scatter else spacer, panels$sample$nonprivate[[sms[i]]])
      rows <- c(rows, lead, lapply(methods, function(m) panels$sample[[m]][[sms[i]]]))
    }
  }
  grid <- patchwork::wrap_plots(unname(rows), ncol = length(methods) + if (np) 2L else 0L,
                                guides = if (collect) "collect" else "keep")
  if (private) return(grid + patchwork::plot_annotation(title = title))
  grid + patchwork::plot_annotation(title = title,
    caption = "PC directions are NON-PRIVATE (g_dppca = FALSE): the figure is not differentially private as a whole.")
}

.group_colours <- function(levels, given) {
  if (is.null(given)) return(stats::setNames(grDevices::hcl.colors(length(levels), "Dark 3"), levels))
  if (is.null(names(given))) return(stats::setNames(rep_len(given, length(levels)), levels))
  missing <- setdiff(levels, names(given))
  extra <- stats::setNames(grDevices::hcl.colors(length(missing), "Dark 3"), missing)
  c(given, extra)[levels]
}

# Unique prefixes of `choices`, in the user's order; unknown or empty names are errors.
.match_choices <- function(x, choices, name) {
  if (!is.character(x) || !length(x)) {
    .bad(name, paste0("one or more of ", paste0('"', choices, '"', collapse = ", ")), x)
  }
  matched <- .expand_choices(x, choices)
  if (!all(matched %in% choices)) {
    .bad(name, paste0("one or more of ", paste0('"', choices, '"', collapse = ", ")), x)
  }
  unique(matched)
}
