#' Privacy budget of a registered dataset
#'
#' A dataset registered in a budget store (`dppca budget init NAME --eps E --delta D` on the
#' command line) has a total (eps, delta) that every private call given its budget is charged
#' before it computes, in one database transaction, across R and Python sessions, users and
#' restarts (see the Python documentation page "Privacy budget"). `dp_budget()` shows the
#' total, what was spent and what is left; its `handle` element is what [dp_pc_dir()] takes as
#' `budget = ` (through `...`), as do [dp_scree()], [dp_score()] and their `_group` and `_plot`
#' forms (`budget = b` or `budget = "name"`). `dp_budget_log()` returns the release log.
#'
#' @param name The dataset's name in the store (a string).
#' @param store `NULL` (the default store: the environment variable `DPPCA_BUDGET_URL` of the
#'   Python process, else a SQLite file in the user's data directory) or a SQLAlchemy URL
#'   such as `"sqlite:////path/budget.sqlite3"` or `"postgresql+psycopg://user@host/db"`.
#' @return `dp_budget()`: a list of class `dppca_budget` with `eps_total`, `delta_total`,
#'   `eps_spent`, `delta_spent`, `eps_left`, `delta_left`, `runs` (public numbers) and
#'   `handle` (the Python handle). `dp_budget_log()`: a data frame, one row per charged run
#'   (time, caller, function, settings, eps, delta, mu, filter, amounts charged, outcome and
#'   the run's ledger as JSON).
#' @examples
#' if (dppca_available()) {
#'   store <- paste0("sqlite:///", tempfile(fileext = ".sqlite3"))
#'   reticulate::import("dppca.privacy")$BudgetStore(store)$register("gau", eps = 1, delta = 1e-5)
#'   b <- dp_budget("gau", store = store)
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, eps = 0.5, delta = 1e-6, seed = 1, budget = b$handle)
#'   dp_budget("gau", store = store)
#'   dp_budget_log("gau", store = store)[, c("function", "eps", "delta", "status")]
#' }
#' @export
dp_budget <- function(name, store = NULL) {
  handle <- .budget_handle(name, store)
  status <- .call(handle$status())
  structure(c(status[c("eps_total", "delta_total", "eps_spent", "delta_spent", "eps_left",
                       "delta_left", "runs")], list(name = name, handle = handle)),
            class = "dppca_budget")
}

#' @rdname dp_budget
#' @export
dp_budget_log <- function(name, store = NULL) {
  .r_frame(.call(.budget_handle(name, store)$log()))
}

#' @rdname dp_budget
#' @param x A `dppca_budget`.
#' @param ... Unused.
#' @export
print.dppca_budget <- function(x, ...) {
  cat(sprintf(paste0("Privacy budget '%s': eps %.4g of %.4g spent (%.4g left), ",
                     "delta %.3g of %.3g spent (%.3g left); %d run(s)\n"),
              x$name, x$eps_spent, x$eps_total, x$eps_left, x$delta_spent, x$delta_total,
              x$delta_left, as.integer(x$runs)))
  invisible(x)
}

# The `budget` argument of the private calls, checked in R: NULL, a dp_budget() value (its
# Python handle), one dataset name, or a Python handle.
.budget_arg <- function(budget) {
  if (is.null(budget) || inherits(budget, "python.builtin.object")) return(budget)
  if (inherits(budget, "dppca_budget")) return(budget$handle)
  if (!is.character(budget) || length(budget) != 1L || is.na(budget) || !nzchar(budget)) {
    .abort("`budget` must be NULL, a dp_budget() value, or one dataset name (a string)",
           class = "dppca_type_error")
  }
  budget
}

.budget_handle <- function(name, store) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name)) {
    .abort("`name` must be one dataset name (a string)", class = "dppca_value_error")
  }
  if (!is.null(store) && (!is.character(store) || length(store) != 1L || is.na(store))) {
    .abort("`store` must be NULL or one SQLAlchemy URL (a string)", class = "dppca_value_error")
  }
  .call(.py()$budget(name, budget_store = store))
}
