# plot() (ggplot2) for directions, scree and score results; as.data.frame() for ledgers and
# scree results. Drawing is post-processing of released numbers: no budget is spent.

utils::globalVariables(c("variable", "loading", "component", "value", "lower", "upper", "series"))

#' Plots and data frames of dppcapy results
#'
#' `plot()` draws a result with 'ggplot2' and returns the plot (printing it draws it):
#' the loadings of each direction ([dp_pc_dir()]), the scree or PVE values with their
#' 95% noise intervals ([dp_scree()]), or the private histograms ([dp_score()],
#' [dp_score_group()]; grouped bins coloured by group). Titles say whether the result is
#' private and its budget, or NON-PRIVATE. `as.data.frame()` gives a ledger as a plain
#' data frame, and a scree result in long form (one row per series and component).
#'
#' @param x A result of [dp_pc_dir()], [dp_scree()], [dp_score()] or [dp_score_group()],
#'   or a ledger ([dp_ledger()]).
#' @param type For scree results: `"pve"` (default) or `"scree"`.
#' @param plot_control For score results: `NULL` or [score_plot_control()] settings.
#' @param row.names,optional,... As for [as.data.frame()]; `...` is unused by `plot()`.
#' @return `plot()`: a ggplot (a patchwork for score results); `as.data.frame()`: a data
#'   frame. Scree: columns `series`, `component`, `scree`, `pve`, `lower`, `upper` (noise
#'   interval of the scree value; `NA` for the NON-PRIVATE series).
#' @examples
#' if (dppca_available()) {
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, eps = 1, delta = 1e-5, seed = 1)
#'   plot(V)
#'   S <- dp_scree(gau[1:500, ], k = 3, eps = 2, delta = 1e-5, seed = 1)
#'   plot(S, type = "scree")
#'   as.data.frame(S)
#'   as.data.frame(dp_ledger(V))
#'   H <- dp_score(gau[1:500, ], eps = 2, delta = 1e-4, bins = 8, method = "add", seed = 1)
#'   plot(H)
#' }
#' @name dppca-plot
NULL

#' @rdname dppca-plot
#' @export
plot.dppca_directions <- function(x, ...) {
  m <- as.matrix(x)
  variables <- rownames(m) %||% paste0("V", seq_len(nrow(m)))
  long <- data.frame(variable = factor(rep(variables, ncol(m)), levels = rev(variables)),
                     component = factor(rep(colnames(m), each = nrow(m)), levels = colnames(m)),
                     loading = as.vector(m))
  ggplot2::ggplot(long, ggplot2::aes(loading, variable)) +
    ggplot2::geom_col(fill = "#6A5ACD") +
    ggplot2::facet_wrap(~component, nrow = 1) +
    ggplot2::geom_vline(xintercept = 0, linewidth = 0.3) +
    ggplot2::labs(x = "loading (unit-length direction)", y = NULL,
                  title = paste("PC directions:", .budget_text(x))) +
    ggplot2::theme_minimal()
}

#' @rdname dppca-plot
#' @export
plot.dppca_scree <- function(x, type = c("pve", "scree"), ...) {
  type <- match.arg(type)
  long <- as.data.frame(x)
  long$value <- long[[type]]
  long$series <- factor(ifelse(long$series == "nonprivate", "NON-PRIVATE", long$series),
                        levels = unique(ifelse(long$series == "nonprivate", "NON-PRIVATE", long$series)))
  if (type == "pve") long$lower <- long$upper <- NA_real_
  plot <- ggplot2::ggplot(long, ggplot2::aes(component, value, colour = series, group = series)) +
    ggplot2::geom_line() + ggplot2::geom_point() +
    ggplot2::scale_x_continuous(breaks = unique(long$component)) +
    ggplot2::expand_limits(y = 0) +
    ggplot2::labs(x = "Component", colour = NULL,
                  y = if (type == "pve") "Proportion of variance explained" else
                    "Scree value (95% noise interval)",
                  title = paste(if (type == "pve") "PVE:" else "Scree:", .budget_text(x))) +
    ggplot2::theme_minimal()
  if (type == "scree" && any(is.finite(long$lower))) {
    plot <- plot + ggplot2::geom_errorbar(ggplot2::aes(ymin = lower, ymax = upper), width = 0.1,
                                          na.rm = TRUE)
  }
  plot
}

#' @rdname dppca-plot
#' @export
plot.dppca_score <- function(x, plot_control = NULL, ...) {
  pctrl <- .merge_score_plot_control(plot_control)
  groups <- names(x$groups)
  grouping <- if (!is.null(groups)) {
    list(levels = groups, colours = .group_colours(groups, pctrl$group_colors))
  }
  look <- .look(x, pctrl, grouping, c(1, 2))
  targets <- intersect(c("nonprivate", "add", "sparse"), names(.histograms_of(x)))
  panels <- lapply(targets, function(t) .hist_panel(x, t, look))
  patchwork::wrap_plots(panels, nrow = 1) +
    patchwork::plot_annotation(title = paste("Score histograms:", .budget_text(x)))
}

# "private, eps = 1, delta = 1e-05" or "NON-PRIVATE ..." from a result's ledger.
.budget_text <- function(x) {
  ledger <- attr(x, "ledger", exact = TRUE)
  private <- attr(x, "private", exact = TRUE)
  if (is.null(ledger) || identical(private, FALSE)) {
    return("NON-PRIVATE directions (g_dppca = FALSE)")
  }
  budget <- attr(ledger, "budget")
  sprintf("private, eps = %s, delta = %s", format(budget[["eps"]]), format(budget[["delta"]]))
}

#' @rdname dppca-plot
#' @export
as.data.frame.dppca_ledger <- function(x, row.names = NULL, optional = FALSE, ...) {
  out <- structure(unclass(x)[names(x)], class = "data.frame", row.names = seq_len(nrow(x)))
  if (!is.null(row.names)) rownames(out) <- row.names
  out
}

#' @rdname dppca-plot
#' @export
as.data.frame.dppca_scree <- function(x, row.names = NULL, optional = FALSE, ...) {
  series <- names(x)
  rows <- lapply(series, function(s) {
    entry <- .subset2(x, s)
    bars <- attr(entry, "conf_int")
    k <- length(entry$scree)
    data.frame(series = s, component = seq_len(k), scree = unname(entry$scree),
               pve = unname(entry$pve),
               lower = if (is.null(bars)) NA_real_ else unname(bars[, "lower"]),
               upper = if (is.null(bars)) NA_real_ else unname(bars[, "upper"]))
  })
  out <- do.call(rbind, rows)
  rownames(out) <- row.names
  out
}
