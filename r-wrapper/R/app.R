#' Interactive app: private scree and score plots with a session privacy budget
#'
#' Starts the Python 'dppca' app (Shiny for Python) with `X` offered as "Provided
#' data", as `dppca::dppca_app()` does, and with what the R package's app lacks: each
#' dataset of a browser session has one total (eps, delta) fixed at the first run; every
#' run draws from it, a run that would exceed it is refused, and a result already
#' released is shown again for free. The page also offers the example datasets (gau,
#' gau_g, adult) and CSV uploads, and downloads of the figures (PNG), released tables
#' (CSV) and the session ledger (JSON).
#'
#' @param X `NULL`, a data frame or a matrix with at least 2 rows.
#' @param group `NULL` (a group column is inferred from the column names and types:
#'   a column named group, label, class, cluster, ... or the first non-numeric column),
#'   the name of a column of the data frame `X`, or one label per row of `X`.
#' @param eps_total,delta_total `NULL` (the total is set in the page before the first
#'   run), or a fixed session total used for every dataset (both together).
#' @param host Interface to bind: `"127.0.0.1"` (default) serves this machine only.
#' @param port TCP port; `0` picks a free one.
#' @param launch.browser Open the page in a web browser.
#' @param background `FALSE` (default): serve until interrupted (Esc / Ctrl+C), like
#'   `shiny::runApp()`. `TRUE`: serve from a child Python process and return at once.
#' @return `background = FALSE`: `NULL`, invisibly, when the server stops.
#'   `background = TRUE`: a list of class `dppca_app` with `url`, `running()` and
#'   `stop()`, invisibly.
#' @examples
#' \dontrun{
#' dppca_app()                          # example data and uploads
#' dppca_app(gau_g, group = "group")    # your data, grouped score plots
#' app <- dppca_app(gau, background = TRUE, port = 0)
#' app$url
#' app$stop()
#' }
#' @export
dppca_app <- function(X = NULL, group = NULL, eps_total = NULL, delta_total = NULL,
                      host = "127.0.0.1", port = 8000L, launch.browser = interactive(),
                      background = FALSE) {
  .check_app_data(X, group)
  .py()  # a clear error when Python or 'dppca' is missing
  if (!reticulate::py_module_available("shiny")) {
    .abort("the app needs the Python package 'shiny': install it in ", reticulate::py_exe(),
           " (pip install 'dppca[app]'), or run dppcapy::install_dppca(package = 'dppca[app]')",
           class = "dppca_python_missing")
  }
  app <- reticulate::import("dppca.app")
  data <- if (is.null(X)) NULL else .as_py_data(X)
  if (!is.null(group) && !(is.character(group) && length(group) == 1L && is.data.frame(X))) {
    group <- as.list(as.character(group))
  }
  args <- list(data, group, eps_total = eps_total, delta_total = delta_total, host = host,
               port = as.integer(port), launch_browser = isTRUE(launch.browser))
  if (!isTRUE(background)) {
    .call(do.call(app$run_app, args))
    return(invisible(NULL))
  }
  handle <- .call(do.call(app$start_app, c(args, list(python = reticulate::py_exe()))))
  message("dppca app on ", handle$url, " (stop it with $stop())")
  invisible(structure(list(url = handle$url, running = function() handle$running(),
                           stop = function() invisible(handle$stop())),
                      class = "dppca_app"))
}

# R's dppca_app checks (reference r-dppca-score.md §16.1).
.check_app_data <- function(X, group) {
  if (is.null(X)) {
    if (!is.null(group)) {
      .abort("`group` needs `X`: give the data too, or neither", class = "dppca_value_error")
    }
    return(invisible())
  }
  if (!is.data.frame(X) && !is.matrix(X)) {
    .abort("`X` must be a data frame or matrix; got an object of class ",
           paste(class(X), collapse = "/"), class = "dppca_type_error")
  }
  if (nrow(X) < 2L) {
    .abort("`X` must have at least 2 rows; got ", nrow(X), class = "dppca_value_error")
  }
  if (is.null(group)) return(invisible())
  if (is.character(group) && length(group) == 1L && is.data.frame(X)) {
    if (!group %in% names(X)) {
      .abort("`group` must name a column of X; no column '", group, "'",
             class = "dppca_value_error")
    }
  } else if (length(group) != nrow(X)) {
    .abort("`group` must be a column name of the data frame X or have one label per row (",
           nrow(X), "); got ", length(group), class = "dppca_value_error")
  }
  invisible()
}
