#' Private scree values and proportions of variance explained
#'
#' Private variances of the data along the top-`k` principal component directions
#' (scree values) by one or more robust private mean methods (`"clipped"`, `"pmwm"`,
#' `"huber"`), with the proportion of variance explained (PVE). Same arguments and return
#' structure as `dppca::dp_scree()`; computed by the Python package 'dppca', private end to
#' end with `g_dppca = TRUE` and self-tuning when a control leaves its thresholds `NULL`.
#'
#' Differences from 'dppca': `pve` is the share of the (private) total variance, not of the
#' sum of the k values ('dppca''s definition is the `pve_among_k` attribute); several
#' methods in one call share the directions and the total variance and split the rest of
#' the budget, so the whole result is (eps, delta)-DP.
#'
#' @inheritParams dp_pc_dir
#' @param X Numeric matrix or data frame (n x p), n >= 4; or one path (a string) to
#'   Parquet/CSV files, read lazily by Python's dask as in [dp_pc_dir()] (then
#'   `g_dppca = TRUE` and `nonprivate = FALSE`: the rows never come to R or to memory).
#' @param design The pairs of the methods' pair statistics: `"auto"` (default: all
#'   \eqn{n(n-1)/2} pairs for data in memory, the incomplete design for a path),
#'   `"complete"` or `"incomplete"` (the pairs inside the blocks of \eqn{r + 1} rows of a
#'   random block design drawn from the call's seed; each row is in one block, so the
#'   sensitivities and the noise are those of the complete statistics). The directions
#'   always use [dp_pc_dir()]'s `design = "auto"`. Unique prefixes are accepted.
#' @param pairs_per_row `NULL` (default: 4095, at most n - 1) or a whole number \eqn{r}
#'   in `1..(n - 1)`, pairs per row of the incomplete design. Not with
#'   `design = "complete"`.
#' @param method `"clipped"`, `"pmwm"`, `"huber"`, or several (unique prefixes accepted).
#'   Omitted: `"clipped"` only, as in 'dppca'.
#' @param control `NULL` (self-tuned defaults), one control ([clipped_control()],
#'   [pmwm_control()], [huber_control()]) for a single method, or a list of them named by
#'   method.
#' @param eps,delta Total privacy budget of the call: `eps > 0`, `0 < delta < 1`.
#' @param bounds,scale Declared public bounds and scales per column, as in [dp_pc_dir()]
#'   (no budget; "public (declared)" on the ledger). With every column bounded, the private
#'   total variance is also clamped to its public bound (Popoviciu's inequality).
#' @param missing What an `NA` (or `NaN`) cell of `X` means, a public policy as in
#'   [dp_pc_dir()]: `"auto"` (default) is `"median"` here (the scree values need every
#'   cell): each column's private median, from a tenth of eps and delta (the first release on
#'   the ledger), fills its holes. One number or numbers named by column: declared public fill
#'   values, no budget. `"drop"` only with `neighbouring = "add_remove"`. A path `X` is read
#'   by Python, whose NaN cells follow the same policy where the Python core supports it.
#' @param neighbouring `"replace"` (default: one row replaced, n public) or `"add_remove"`
#'   (n private), passed to the Python core: where it does not cover the scree methods yet,
#'   its refusal, from the arguments alone, is an R error of class `dppca_value_error`.
#' @param budget `NULL` (the default: the call is charged nowhere), or the registered dataset
#'   whose budget store is charged the call's (eps, delta) before it computes, in one
#'   transaction (refused with an error once the total is spent): a [dp_budget()] value, or
#'   the dataset's name (a string) in the default store.
#' @param g_dppca Logical. `TRUE` (the default here; 'dppca''s default is `FALSE`):
#'   private g-DPPCA directions, so that the whole result is (eps, delta)-DP. `FALSE`:
#'   NON-PRIVATE directions (sample covariance), said in the summary and on the plots.
#' @param mono Logical: clip at 0 and fit a non-increasing sequence (as 'dppca').
#' @param nonprivate Logical. `FALSE` (the default): the result holds private numbers
#'   only. `TRUE`: also return the NON-PRIVATE reference (the `nonprivate` entry: the
#'   sample covariance's eigenvalues and their PVE), giving 'dppca''s full structure; for
#'   comparison only, never publish it. Default `getOption("dppcapy.nonprivate", FALSE)`:
#'   `options(dppcapy.nonprivate = TRUE)` switches every call of the session.
#' @return A named list of class `dppca_scree`, as in 'dppca': `nonprivate` (only when
#'   `nonprivate = TRUE`), then one entry per method, each `list(scree, pve)` of numeric
#'   vectors named `PC1..PCk`. Each entry's attributes: `pve_among_k`, `cumulative_pve`,
#'   `total_variance`, and for private methods `raw`, `std_err`, `conf_int` (k x 2, noise
#'   only) and `ledger`. The list's attributes: `ledger` (all releases of the call, see
#'   [dp_ledger()]), `private`, `summary`.
#' @examples
#' if (dppca_available()) {
#'   res <- dp_scree(gau[1:1000, ], k = 3, eps = 2, delta = 1e-5, g_dppca = TRUE, seed = 1)
#'   res$clipped$scree
#'   attr(res$clipped, "conf_int")
#'   # incomplete pair statistics: blocks of 512 rows
#'   inc <- dp_scree(gau[1:2000, ], k = 3, eps = 2, delta = 1e-5, design = "incomplete",
#'                   pairs_per_row = 511, seed = 1)
#'   inc$clipped$pve
#' }
#' @export
dp_scree <- function(X, k, method = c("clipped", "pmwm", "huber"), control = NULL, eps, delta,
                     center = TRUE, standardize = FALSE, g_dppca = TRUE, cpp.option = FALSE,
                     mono = TRUE, seed = NULL, calibration = "analytic", noise = "tight",
                     nonprivate = getOption("dppcapy.nonprivate", FALSE),
                     design = c("auto", "complete", "incomplete"), pairs_per_row = NULL,
                     budget = NULL, bounds = NULL, scale = NULL, missing = "auto",
                     neighbouring = c("replace", "add_remove")) {
  # base::missing(): the argument `missing` would shadow it if it were given a function.
  method <- if (base::missing(method) || is.null(method)) {
    .default_scree_method(standardize)
  } else method
  .from_py(.py_scree(X, k, method, control, if (!base::missing(eps)) eps,
                     if (!base::missing(delta)) delta, center, standardize, g_dppca, cpp.option,
                     mono, seed, calibration, nonprivate, noise, design, pairs_per_row, budget,
                     .declared_args(bounds, scale), missing, neighbouring))
}

.scree_methods <- c("clipped", "pmwm", "huber")

# The scree method when none is given: the rank path has one ("rank", the latent correlation's
# eigenvalues); the other paths default to "clipped".
.default_scree_method <- function(standardize) {
  if (identical(standardize, "rank")) "rank" else "clipped"
}

.py_scree <- function(X, k, method, control, eps, delta, center, standardize, g_dppca,
                      cpp.option, mono, seed, calibration, nonprivate, noise = "tight",
                      design = "auto", pairs_per_row = NULL, budget = NULL, declared = list(),
                      missing = "auto", neighbouring = "replace") {
  .check_standardize(standardize)
  .check_flags(center = center, g_dppca = g_dppca,
               cpp.option = cpp.option, mono = mono, nonprivate = nonprivate)
  if (!is.null(control) && !is.list(control)) {
    .abort("`control` must be NULL, a *_control() list, or a list of them named by method",
           class = "dppca_type_error")
  }
  args <- list(.as_py_data(X, path_ok = TRUE), .whole(k, "k", null_ok = FALSE),
               method = as.list(.expand_choices(method, .scree_methods)),
               control = .py_control(control),
               eps = eps, delta = delta, center = center, standardize = standardize,
               g_dppca = g_dppca, mono = mono, calibration = calibration, rng = .seed(seed),
               nonprivate = nonprivate)
  args$budget <- .budget_arg(budget)
  do.call(.invoke, c(list(.py()$dp_scree), args, .noise_arg(.py()$dp_scree, noise),
                     .design_args(.py()$dp_scree, design, pairs_per_row), declared,
                     .missing_args(.py()$dp_scree, missing, neighbouring)))
}

#' Scree or PVE plot of private scree values
#'
#' Runs [dp_scree()] and draws, with base graphics as `dppca::dp_scree_plot()` does, one
#' line per series (the NON-PRIVATE reference only when `nonprivate = TRUE`, then each
#' method), with 95% noise intervals on the private scree values (`type = "scree"`). By
#' default only the private series are drawn.
#'
#' @inheritParams dp_scree
#' @param type `"pve"` (default) or `"scree"`.
#' @param plot_control `NULL` or [scree_plot_control()] settings.
#' @return The [dp_scree()] value, invisibly.
#' @examples
#' if (dppca_available()) {
#'   dp_scree_plot(gau[1:1000, ], k = 4, eps = 2, delta = 1e-5, g_dppca = TRUE,
#'                 type = "scree", seed = 1)
#' }
#' @export
dp_scree_plot <- function(X, k, method = c("clipped", "pmwm", "huber"), control = NULL, eps,
                          delta, center = TRUE, standardize = FALSE, g_dppca = TRUE,
                          cpp.option = FALSE, mono = TRUE, type = c("pve", "scree"),
                          plot_control = NULL, seed = NULL, calibration = "analytic",
                          noise = "tight", nonprivate = getOption("dppcapy.nonprivate", FALSE),
                          design = c("auto", "complete", "incomplete"), pairs_per_row = NULL,
                          budget = NULL, bounds = NULL, scale = NULL, missing = "auto",
                          neighbouring = c("replace", "add_remove")) {
  # base::missing(): the argument `missing` would shadow it if it were given a function.
  type <- .match_choices(if (base::missing(type) || is.null(type)) "pve" else type,
                         c("pve", "scree"), "type")
  if (length(type) != 1L) .bad("type", 'one of "pve", "scree"', type)
  style <- .merge_scree_plot_control(plot_control, type)
  method <- if (base::missing(method) || is.null(method)) {
    .default_scree_method(standardize)
  } else method
  result <- .from_py(.py_scree(X, k, method, control, if (!base::missing(eps)) eps,
                               if (!base::missing(delta)) delta, center, standardize, g_dppca,
                               cpp.option, mono, seed, calibration, nonprivate, noise,
                               design, pairs_per_row, budget, .declared_args(bounds, scale),
                               missing, neighbouring))
  .draw_scree(result, type, style)
  invisible(result)
}

# 'dppca''s drawing (r-dppca-scree.md §11.3): series joined by lines with points, integer
# x ticks, padded y limits (from 0 for PVE), legend; plus noise intervals on private scree.
.draw_scree <- function(result, type, style) {
  series <- names(result)
  values <- lapply(result, `[[`, type)
  k <- length(values[[1]])
  bars <- if (type == "scree") lapply(result, attr, which = "conf_int")
  ylim <- .scree_ylim(c(unlist(values), unlist(bars)), type)
  x <- seq_len(k)
  for (i in seq_along(series)) {
    s <- series[[i]]
    draw <- if (i == 1L) graphics::plot else graphics::lines
    extra <- if (i == 1L) list(ylim = ylim, xlim = range(x) + c(-0.4, 0.4) * (k == 1L),
                               main = style$title, xlab = style$xlab, ylab = style$ylab,
                               xaxt = "n", cex.main = style$cex_main, cex.lab = style$cex_lab,
                               cex.axis = style$cex_axis)
    do.call(draw, c(list(x, values[[s]], type = "b", col = style$col[[s]], lty = style$lty[[s]],
                         pch = style$pch[[s]], lwd = style$lwd, cex = style$point_cex), extra))
    if (!is.null(bars[[s]])) {  # dodged a little so that the intervals of series stay apart
      at <- x + 0.04 * (i - (length(series) + 1) / 2)
      low <- bars[[s]][, "lower"]
      high <- bars[[s]][, "upper"]
      # Bars under 0.01 inch hide behind the point (arrows() warns on them): not drawn.
      tall <- which(graphics::grconvertY(high, to = "inches") -
                      graphics::grconvertY(low, to = "inches") > 0.01)
      graphics::arrows(at[tall], low[tall], at[tall], high[tall], angle = 90, code = 3,
                       length = 0.03, col = style$col[[s]], lwd = style$lwd)
    }
  }
  graphics::axis(1, at = x, labels = x, cex.axis = style$cex_axis)
  if (!isTRUE(attr(result, "private"))) {
    graphics::mtext("PC directions are NON-PRIVATE (g_dppca = FALSE)", side = 3, line = 0.2,
                    cex = 0.8)
  }
  graphics::legend(style$legend_position, legend = unname(style$legend_labels[series]),
                   col = unname(style$col[series]), lty = unname(style$lty[series]),
                   pch = unname(style$pch[series]), lwd = style$lwd, pt.cex = style$point_cex,
                   cex = style$cex_legend, bty = style$legend_bty)
}

.scree_ylim <- function(y, type) {
  y <- y[is.finite(y)]
  if (!length(y)) return(c(0, 1))
  low <- min(y)
  high <- max(y)
  pad <- if (high > low) 0.04 * (high - low) else if (low == 0) 0.5 else 0.05 * abs(low)
  limits <- c(low - pad, high + pad)
  # From 0 (PVE never below; scree values only through a noise interval below 0).
  limits[1] <- if (type == "pve") max(0, limits[1]) else min(0, limits[1])
  limits
}
