#' Expected accuracy of a private scree analysis, before any release
#'
#' Calls the Python `dppca.plan()`: from public numbers only (n, p, k, eps, delta) it
#' predicts the error of each private step of `dp_scree()` (directions, trace, tuning,
#' scree values) and says which steps are noise-dominated and what would fix them. It
#' reads no data and spends no budget; `dp_scree()` issues the same verdict as a warning
#' before it runs, and shows it in its summary ("Expected accuracy").
#'
#' @param n,p Number of rows (at least 4) and columns of the data (public).
#' @param k Number of components, between 1 and `p`.
#' @param eps,delta The budget of the planned call: `eps > 0`, `delta` in (0, 1).
#' @param method Scree methods, as in `dp_scree()` (default `"clipped"`).
#' @param standardize,g_dppca As in `dp_scree()`.
#' @return A list of class `dppca_plan`: `table` (a data frame with one row per step:
#'   `step`, `quantity`, `predicted`, `threshold`, `unit`, `reliable`, `assumptions`,
#'   `fix`), `reliable` (every step reliable) and `text` (the printed table with its
#'   Notes). Printing shows `text`.
#' @examples
#' \dontrun{
#' dp_plan(n = 150, p = 4, k = 3, eps = 1, delta = 1e-5)
#' dp_plan(nrow(gau), ncol(gau), k = 3, eps = 1, delta = 1e-5)$reliable
#' }
#' @export
dp_plan <- function(n, p, k = 2L, eps, delta, method = "clipped", standardize = FALSE,
                    g_dppca = TRUE) {
  .check_number(n, "n", lower = 4, integer = TRUE)
  .check_number(p, "p", lower = 1, integer = TRUE)
  .check_number(k, "k", lower = 1, upper = p, integer = TRUE)
  .check_number(eps, "eps", lower = 0, open = TRUE)
  .check_number(delta, "delta", lower = 0, upper = 1, open = TRUE)
  planned <- .call(.py()$plan(as.integer(n), as.integer(p), as.integer(k), eps, delta,
                              method = as.list(method), standardize = standardize,
                              g_dppca = g_dppca))
  structure(list(table = .r_frame(planned$to_frame()),
                 reliable = isTRUE(planned$reliable),
                 text = as.character(planned$as_text())), class = "dppca_plan")
}

#' @rdname dp_plan
#' @param x A `dppca_plan`.
#' @param ... Unused.
#' @export
print.dppca_plan <- function(x, ...) {
  cat(x$text, "\n", sep = "")
  invisible(x)
}
