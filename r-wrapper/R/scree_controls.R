#' Controls of the private scree methods
#'
#' Tuning of [dp_scree()]'s methods, with 'dppca''s argument names. Every argument has
#' a default: a threshold left `NULL` is tuned privately from the data with a documented
#' share of the method's budget (on the ledger). Checked by the Python core; the value is
#' a plain named list, 'dppca''s fields first (in its order), then the extra ones.
#'
#' @param C_clip Public clipping threshold (> 0) of the pair values
#'   \eqn{(y_i - y_j)^2 / 2}; `NULL`: self-tuned (2.4 x a private 90% quantile).
#' @param tuning_share Share of the method's budget spent on self-tuning, in (0, 1).
#' @return A named list of the settings.
#' @examples
#' if (dppca_available()) {
#'   clipped_control(C_clip = 3)
#'   pmwm_control(a = 0, b = 20, trim_const = 10, eta = 0.01)
#'   huber_control(k_min_m2 = -10, k_max_m2 = 10, m2_frac = 1 / 4)
#' }
#' @name scree-controls
NULL

#' @rdname scree-controls
#' @export
clipped_control <- function(C_clip = NULL, tuning_share = 0.25) {
  .checked_control("clipped_control", list(C_clip = C_clip, tuning_share = tuning_share))
}

#' @rdname scree-controls
#' @param a,b Public search range of the private quantiles (`a < b`), or both `NULL`
#'   (self-tuned quantiles).
#' @param trim_const Trim constant (> 0).
#' @param eta Minimum trim proportion, in (0, 0.5).
#' @param beta Grid ratio of the quantile scans (> 1; used with `a` and `b`).
#' @param split_mode Logical: quantiles and mean from different halves of the rows.
#' @param widen Widening of the winsorization interval in units of its width (>= 0; 0
#'   reproduces 'dppca').
#' @export
pmwm_control <- function(a = NULL, b = NULL, trim_const = 10, eta = 0.25, beta = 1.001,
                         split_mode = FALSE, widen = 4, tuning_share = 0.25) {
  .checked_control("pmwm_control", list(beta = beta, a = a, b = b, trim_const = trim_const,
                                        eta = eta, split_mode = split_mode, widen = widen,
                                        tuning_share = tuning_share))
}

#' @rdname scree-controls
#' @param k_min_m2,k_max_m2 Public log2 bin range of the scale proxy (integers,
#'   `k_min_m2 < k_max_m2`), or both `NULL` (self-tuned).
#' @param m2_frac Share of the method's budget spent on tuning, in (0, 1).
#' @param mu0 Starting value (`NULL`: the private median of the pair values).
#' @param eta0 Step size (> 0).
#' @param T Number of gradient steps (a positive integer; `NULL`: 1).
#' @param M Number of blocks of the scale histogram (a positive integer; `NULL`:
#'   `floor(sqrt(n) / 2)`).
#' @export
huber_control <- function(k_min_m2 = NULL, k_max_m2 = NULL, m2_frac = 0.25, mu0 = NULL,
                          eta0 = 1, T = NULL, M = NULL) {
  .checked_control("huber_control", list(mu0 = mu0, eta0 = eta0, T = T, M = M,
                                         k_min_m2 = k_min_m2, k_max_m2 = k_max_m2,
                                         m2_frac = m2_frac))
}

# Let the Python constructor check the settings (its errors become R errors), keep R's list
# (whole numbers as the user wrote them: 50 stays a double, as in 'dppca').
.checked_control <- function(constructor, settings) {
  if (!is.null(settings$split_mode)) .check_flags(split_mode = settings$split_mode)
  python <- settings
  for (name in intersect(names(python), .whole_settings)) {
    python[name] <- list(.whole(python[[name]], name))
  }
  do.call(.invoke, c(list(.py()[[constructor]]), python))
  settings
}

# A control (or a list of them named by method) for Python: whole-number settings as integers.
.py_control <- function(control) {
  if (is.null(control)) return(NULL)
  if (length(control) && all(vapply(control, is.list, logical(1)))) return(lapply(control, .py_control))
  for (name in intersect(names(control), .whole_settings)) {
    control[name] <- list(.whole(control[[name]], name))
  }
  control
}

# Integer-valued settings of the scree controls.
.whole_settings <- c("T", "M", "k_min_m2", "k_max_m2")

#' Appearance of the scree plot
#'
#' Same arguments, defaults and checks as `dppca::scree_plot_control()`. Per-series
#' settings (`legend_labels`, `col`, `lty`, `pch`) are vectors named by series
#' (`nonprivate`, `clipped`, `pmwm`, `huber`); only the named series change.
#'
#' @param title,xlab,ylab `NULL` (defaults by `type`) or a string.
#' @param legend_position A [graphics::legend()] keyword, e.g. `"topright"`.
#' @param legend_labels,col,lty,pch Named per-series settings, or `NULL`.
#' @param lwd,point_cex,cex_main,cex_lab,cex_axis,cex_legend Sizes (> 0).
#' @param legend_bty Legend box type: `"n"` (none) or `"o"`.
#' @return A named list with the 15 settings.
#' @examples
#' scree_plot_control(title = "Private scree", col = c(clipped = "darkred"))
#' @export
scree_plot_control <- function(title = NULL, xlab = NULL, ylab = NULL,
                               legend_position = "topright", legend_labels = NULL, col = NULL,
                               lty = NULL, pch = NULL, lwd = 1, point_cex = 1, cex_main = 1.5,
                               cex_lab = 1.2, cex_axis = 1.1, cex_legend = 1.1,
                               legend_bty = "n") {
  for (name in c("title", "xlab", "ylab")) .check_label(get(name), name)
  for (name in c("legend_position", "legend_bty")) {
    value <- get(name)
    if (!is.character(value) || length(value) != 1L || is.na(value)) .bad(name, "a single string", value)
  }
  for (name in c("lwd", "point_cex", "cex_main", "cex_lab", "cex_axis", "cex_legend")) {
    .check_number(get(name), name, lower = 0, open = TRUE)
  }
  for (name in c("legend_labels", "col", "lty", "pch")) {
    .check_series(get(name), name, strings = name %in% c("legend_labels", "col"))
  }
  list(title = title, xlab = xlab, ylab = ylab, legend_position = legend_position,
       legend_labels = legend_labels, col = col, lty = lty, pch = pch, lwd = lwd,
       point_cex = point_cex, cex_main = cex_main, cex_lab = cex_lab, cex_axis = cex_axis,
       cex_legend = cex_legend, legend_bty = legend_bty)
}

.scree_series <- c("nonprivate", "clipped", "pmwm", "huber")

.check_series <- function(x, name, strings) {
  if (is.null(x)) return(invisible(x))
  named <- !is.null(names(x)) && all(nzchar(names(x))) && all(names(x) %in% .scree_series)
  if (!named || (strings && !is.character(x))) {
    .bad(name, paste0("NULL or a vector named by series (", paste(.scree_series, collapse = ", "),
                      ")", if (strings) " of strings"), x)
  }
  invisible(x)
}

# The defaults of 'dppca' for `type`, overridden by the user's settings (scalars when not
# NULL; per-series vectors entry by entry).
.merge_scree_plot_control <- function(control, type) {
  if (!is.null(control) && !is.list(control)) {
    .abort("`plot_control` must be NULL or a list from scree_plot_control()",
           class = "dppca_type_error")
  }
  style <- list(
    title = if (type == "pve") "DP PVE Plot" else "DP Scree Plot", xlab = "Component",
    ylab = if (type == "pve") "Proportion of Variance Explained" else "Scree Value",
    legend_position = "topright",
    legend_labels = c(nonprivate = "NON-PRIVATE", clipped = "Clipped", pmwm = "PMWM",
                      huber = "Huber"),
    col = c(nonprivate = "black", clipped = "red", pmwm = "forestgreen", huber = "blue"),
    lty = c(nonprivate = 1, clipped = 1, pmwm = 1, huber = 1),
    pch = c(nonprivate = 16, clipped = 17, pmwm = 15, huber = 18),
    lwd = 1, point_cex = 1, cex_main = 1.5, cex_lab = 1.2, cex_axis = 1.1, cex_legend = 1.1,
    legend_bty = "n")
  for (name in names(control)) {
    value <- control[[name]]
    if (is.null(value)) next
    if (name %in% c("legend_labels", "col", "lty", "pch")) {
      style[[name]][names(value)] <- value
    } else {
      style[[name]] <- value
    }
  }
  style
}
