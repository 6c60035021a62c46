# The Python side: lazy import, availability, installation, error translation.

.state <- new.env(parent = emptyenv())

.onLoad <- function(libname, pkgname) {
  # A virtualenv made by install_dppca() is a candidate unless the user chose a Python.
  if (!nzchar(Sys.getenv("RETICULATE_PYTHON")) &&
      reticulate::virtualenv_exists(.default_envname)) {
    reticulate::use_virtualenv(.default_envname, required = FALSE)
  }
  # Nothing starts Python here: the modules load on first use.
  .state$core <- reticulate::import("dppca", delay_load = TRUE)
  .state$bridge <- reticulate::import("dppca.rbridge", delay_load = TRUE)
  .state$ready <- FALSE
}

.default_envname <- "r-dppca"

#' Is the Python package 'dppca' usable from R?
#'
#' Starts Python (through reticulate) if needed and checks that the module
#' `dppca` can be imported. Never raises an error.
#'
#' @return `TRUE` or `FALSE`.
#' @examples
#' dppca_available()
#' @export
dppca_available <- function() {
  isTRUE(.state$ready) || isTRUE(tryCatch(.check_python(), error = function(e) FALSE))
}

#' Install the Python package 'dppca' for 'dppcapy'
#'
#' Creates (if needed) a Python virtual environment and installs `dppca` into it
#' with `numpy < 2` when the installed reticulate predates NumPy 2 support
#' (reticulate < 1.38, e.g. Debian's 1.28). Restart R afterwards: 'dppcapy' uses the
#' environment `envname` automatically when `RETICULATE_PYTHON` is not set.
#'
#' @param envname Name of (or path to) the virtual environment.
#' @param package What pip installs: `"dppca"`, a path to a source checkout, or a
#'   wheel file.
#' @param python Python used to create the environment (`NULL`: reticulate's choice).
#' @param ... Passed to [reticulate::virtualenv_install()].
#' @return The path of the environment's Python, invisibly.
#' @examples
#' \dontrun{
#' install_dppca(package = "/path/to/dppca")   # a source checkout
#' }
#' @export
install_dppca <- function(envname = "r-dppca", package = "dppca", python = NULL, ...) {
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python)
  }
  numpy <- if (utils::packageVersion("reticulate") < "1.38") "numpy>=1.26,<2"
  reticulate::virtualenv_install(envname, c(numpy, package), ...)
  python <- reticulate::virtualenv_python(envname)
  message("dppca installed in ", envname, ". Restart R, or set RETICULATE_PYTHON=", python)
  invisible(python)
}

# The imported module `dppca` (or `dppca.rbridge`), with a clear error when it is missing.
.py <- function(module = c("core", "bridge")) {
  module <- match.arg(module)
  if (!isTRUE(.state$ready)) .check_python()
  .state[[module]]
}

.check_python <- function() {
  if (!reticulate::py_available(initialize = TRUE)) {
    .abort("Python is not available to reticulate. Install it, then run ",
           "dppcapy::install_dppca(), or set RETICULATE_PYTHON to a Python that has 'dppca'.",
           class = "dppca_python_missing")
  }
  if (!reticulate::py_module_available("dppca")) {
    found <- !is.null(reticulate::import("importlib.util")$find_spec("dppca"))
    if (found) {
      failure <- tryCatch({reticulate::import("dppca"); ""}, error = conditionMessage)
      .abort("the Python module 'dppca' in ", reticulate::py_exe(), " fails to import: ",
             failure, class = "dppca_python_missing")
    }
    .abort("the Python module 'dppca' is not installed in ", reticulate::py_exe(),
           ". Run dppcapy::install_dppca(), or set RETICULATE_PYTHON to a Python that has ",
           "'dppca' (with numpy < 2 for reticulate < 1.38).", class = "dppca_python_missing")
  }
  if (!reticulate::py_numpy_available()) {
    .abort("reticulate ", utils::packageVersion("reticulate"), " cannot use the numpy of ",
           reticulate::py_exe(), " (reticulate < 1.38 needs numpy < 2). Run ",
           "dppcapy::install_dppca() or install 'numpy<2' there.", class = "dppca_python_missing")
  }
  .state$ready <- TRUE
  TRUE
}

# Evaluate a call into Python; a Python exception becomes an R error with the same message
# (no traceback), of class c("dppca_<type>", "dppca_error", "error", "condition").
.call <- function(expr) {
  tryCatch(expr, error = function(e) {
    py <- tryCatch(reticulate::py_last_error(), error = function(err) NULL)
    if (is.null(py) || !nzchar(py$value) || !grepl(py$value, conditionMessage(e), fixed = TRUE)) stop(e)
    .abort(py$value, class = .error_class(py$type))
  })
}

# Call the Python function `fn` with `...`; its Python warnings become R warnings.
.invoke <- function(fn, ...) {
  out <- .call(.py("bridge")$call_for_r(fn, ...))
  for (message in unlist(out[[2]])) warning(message, call. = FALSE)
  out[[1]]
}

.error_class <- function(type) {
  switch(type, DPPCAValueError = "dppca_value_error", DPPCATypeError = "dppca_type_error",
         paste0("dppca_python_", tolower(type)))
}

.abort <- function(..., class = NULL) {
  stop(structure(class = c(class, "dppca_error", "error", "condition"),
                 list(message = paste0(...), call = NULL)))
}
