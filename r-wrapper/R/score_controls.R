#' Settings of synthetic samples drawn from private histograms
#'
#' Synthetic points are post-processing of a released histogram: a bin is drawn with
#' its private probability, the base point is uniform inside it (`"uniform"`) or its
#' centre (`"center"`), and Gaussian jitter of `bandwidth_scale` median bin widths is
#' added. Same arguments as `dppca::sampling_control()`; validated by the Python core.
#' Unknown method names are errors ('dppca' drops them silently), and `method = NULL`
#' means `"uniform"`.
#'
#' @param method `"uniform"`, `"center"` or both (unique prefixes accepted).
#' @param sample_size Points per sample (a positive integer); `NULL`: n.
#' @param bandwidth_scale `NULL` (0.25 for uniform, 0.5 for center), one number >= 0 for
#'   every method, or a vector named by method.
#' @return A list `list(method, sample_size, bandwidth_scale)` of class
#'   `c("dppca_sampling_control", "list")`, `bandwidth_scale` named by method.
#' @examples
#' if (dppca_available()) sampling_control(c("uniform", "center"), sample_size = 500)
#' @export
sampling_control <- function(method = "uniform", sample_size = NULL, bandwidth_scale = NULL) {
  control <- .py_sampling_control(list(method = method, sample_size = .whole(sample_size, "sample_size"),
                                       bandwidth_scale = bandwidth_scale))
  structure(list(method = as.character(unlist(control$method)),
                 sample_size = if (!is.null(control$sample_size)) as.double(control$sample_size),
                 bandwidth_scale = unlist(control$bandwidth_scale)),
            class = c("dppca_sampling_control", "list"))
}

# The Python SamplingControl of an R list with method, sample_size, bandwidth_scale.
.py_sampling_control <- function(control) {
  if (is.null(control)) control <- list()
  if (!is.list(control)) {
    .abort("`sampling_control` must be NULL or a list from sampling_control(); got ",
           class(control)[1], class = "dppca_type_error")
  }
  method <- .expand_choices(control$method %||% "uniform", c("center", "uniform"))
  bandwidth <- control$bandwidth_scale
  if (length(bandwidth) > 1L || (length(bandwidth) == 1L && !is.null(names(bandwidth)) &&
                                 length(method) > 1L)) {
    bandwidth <- as.list(bandwidth)
  } else if (length(bandwidth) == 1L) {
    bandwidth <- unname(bandwidth)
  }
  .call(.py()$sampling_control(as.list(method), .whole(control$sample_size, "sample_size"),
                               bandwidth))
}

`%||%` <- function(x, y) if (is.null(x)) y else x

#' Appearance of the score plot panels
#'
#' Same arguments, defaults and checks as `dppca::score_plot_control()`; the panels are
#' drawn in R with 'ggplot2' and assembled with 'patchwork'.
#'
#' @param color Colour of points and bins (any R colour).
#' @param scatter_alpha Opacity of points, in `[0, 1]`.
#' @param scatter_size Point size (> 0, ggplot2 units).
#' @param hist_alpha_range Opacity of the emptiest and fullest bin, `0 <= a1 <= a2 <= 1`.
#' @param base_size,title_size Font sizes (> 0).
#' @param scatter_title,nonprivate_title,add_title,sparse_title Panel titles (`NULL`:
#'   none).
#' @param xlab,ylab Axis labels (`NULL`: the score column names, e.g. `PC1`).
#' @param group_colors `NULL` or colours for the groups (recycled in group order, or
#'   named by group).
#' @param group_ncol A positive integer (accepted, unused, as in 'dppca').
#' @param show_group_legend Logical: show the group legend (default `TRUE`; 'dppca''s
#'   default is `FALSE`).
#' @return A named list with the 15 settings.
#' @examples
#' score_plot_control(color = "darkgreen", hist_alpha_range = c(0.1, 1))
#' @export
score_plot_control <- function(color = "#6A5ACD", scatter_alpha = 0.6, scatter_size = 1.8,
                               hist_alpha_range = c(0, 1), base_size = 12, title_size = 14,
                               scatter_title = "NON-PRIVATE Scatter",
                               nonprivate_title = "NON-PRIVATE Histogram",
                               add_title = "Add DP Histogram",
                               sparse_title = "Sparse DP Histogram", xlab = NULL, ylab = NULL,
                               group_colors = NULL, group_ncol = 3, show_group_legend = TRUE) {
  if (!.is_colour(color) || length(color) != 1L) .bad("color", "a single valid colour", color)
  .check_number(scatter_alpha, "scatter_alpha", lower = 0, upper = 1)
  for (name in c("scatter_size", "base_size", "title_size")) {
    .check_number(get(name), name, lower = 0, open = TRUE)
  }
  if (!is.numeric(hist_alpha_range) || length(hist_alpha_range) != 2L ||
      any(!is.finite(hist_alpha_range)) || hist_alpha_range[1] < 0 ||
      hist_alpha_range[2] > 1 || hist_alpha_range[1] > hist_alpha_range[2]) {
    .bad("hist_alpha_range", "two numbers with 0 <= a1 <= a2 <= 1", hist_alpha_range)
  }
  titles <- list(scatter_title = scatter_title, nonprivate_title = nonprivate_title,
                 add_title = add_title, sparse_title = sparse_title, xlab = xlab, ylab = ylab)
  for (name in names(titles)) .check_label(titles[[name]], name)
  if (!is.null(group_colors) && (!length(group_colors) || !all(.is_colour(group_colors)))) {
    .bad("group_colors", "NULL or a non-empty vector of valid colours", group_colors)
  }
  .check_number(group_ncol, "group_ncol", lower = 1, integer = TRUE)
  .check_flags(show_group_legend = show_group_legend)
  list(color = color, scatter_alpha = scatter_alpha, scatter_size = scatter_size,
       hist_alpha_range = as.double(hist_alpha_range), base_size = base_size,
       title_size = title_size, scatter_title = scatter_title,
       nonprivate_title = nonprivate_title, add_title = add_title, sparse_title = sparse_title,
       xlab = xlab, ylab = ylab, group_colors = group_colors,
       group_ncol = as.integer(group_ncol), show_group_legend = show_group_legend)
}

# score_plot_control()'s defaults overridden by the named entries of `control`.
.merge_score_plot_control <- function(control) {
  defaults <- score_plot_control()
  if (is.null(control)) return(defaults)
  if (!is.list(control) || is.null(names(control)) || any(!nzchar(names(control)))) {
    .abort("`plot_control` must be NULL or a named list from score_plot_control()",
           class = "dppca_type_error")
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown)) {
    .abort("`plot_control` has unknown settings ", paste(unknown, collapse = ", "),
           "; known: ", paste(names(defaults), collapse = ", "), class = "dppca_value_error")
  }
  utils::modifyList(defaults, control)
}

.is_colour <- function(x) {
  vapply(x, function(col) {
    is.character(col) && !is.na(col) &&
      !inherits(tryCatch(grDevices::col2rgb(col), error = identity), "error")
  }, logical(1))
}

.check_number <- function(x, name, lower = -Inf, upper = Inf, open = FALSE, integer = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && is.finite(x) && x <= upper &&
    (if (open) x > lower else x >= lower) && (!integer || x == round(x))
  if (!ok) {
    rule <- paste0(if (integer) "an integer" else "a finite number",
                   if (is.finite(lower)) paste(if (open) " >" else " >=", lower),
                   if (is.finite(upper)) paste(" <=", upper))
    .bad(name, rule, x)
  }
  invisible(x)
}

.check_label <- function(x, name) {
  if (!is.null(x) && (!is.character(x) || length(x) != 1L || is.na(x))) {
    .bad(name, "NULL or a single string", x)
  }
}

.bad <- function(name, rule, value) {
  .abort("`", name, "` must be ", rule, "; got ", paste(deparse(value), collapse = " "),
         class = "dppca_value_error")
}
