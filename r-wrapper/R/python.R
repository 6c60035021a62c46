# The Python side: lazy import, availability, installation, error translation.

.state <- new.env(parent = emptyenv())

.onLoad <- function(libname, pkgname) {
  # A virtualenv made by install_dppca() is a candidate unless the user chose a Python.
  if (!nzchar(Sys.getenv("RETICULATE_PYTHON")) &&
      reticulate::virtualenv_exists(.default_envname)) {
    reticulate::use_virtualenv(.default_envname, required = FALSE)
  }
  # Nothing starts Python here: the modules load on first use, and the version handshake
  # runs then (reticulate's delay_load hooks).
  .state$core <- reticulate::import("dppca", delay_load = list(
    on_load = function() {
      .state$version_problem <- tryCatch(.version_problem(.python_version()),
                                         error = conditionMessage)
    },
    on_error = function(e) .state$load_error <- conditionMessage(e)))
  .state$bridge <- reticulate::import("dppca.interop", delay_load = TRUE)
  .state$ready <- FALSE
}

.default_envname <- "r-dppca"

# The versions of the Python package 'dppca' this wrapper works with: [minimum, next major).
.python_needs <- c(minimum = "0.1.0", below = "1.0.0")

.python_version <- function() {
  as.character(reticulate::py_get_attr(reticulate::import("dppca"), "__version__"))
}

# NULL when `found` is in the supported range, else the message saying what to do.
.version_problem <- function(found, needs = .python_needs) {
  version <- tryCatch(numeric_version(found), error = function(e) NULL)
  if (!is.null(version) && version >= needs[["minimum"]] && version < needs[["below"]]) return(NULL)
  paste0("dppcapy ", utils::packageVersion("dppcapy"), " needs the Python package 'dppca' >= ",
         needs[["minimum"]], " and < ", needs[["below"]], "; ", reticulate::py_exe(), " has ",
         found, ". Run dppcapy::install_dppca() (or pip install the matching 'dppca') and ",
         "restart R.")
}

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
#' (reticulate < 1.38, e.g. Debian's 1.28); pyarrow, if installed (e.g. with
#' `package = "dppca[dask]"`, for Parquet/CSV paths as `X`), is then held below 26, the
#' first version that needs NumPy 2. Restart R afterwards: 'dppcapy' uses the
#' environment `envname` automatically when `RETICULATE_PYTHON` is not set.
#'
#' @param envname Name of (or path to) the virtual environment.
#' @param package What pip installs: `"dppca"`, a path to a source checkout, or a
#'   wheel file.
#' @param python Python used to create the environment (`NULL`: reticulate's choice).
#' @param ... Passed to [reticulate::virtualenv_install()].
#' @return The path of the environment's Python, invisibly.
#' @examples
#' dppca_config()$python   # the Python in use now
#' \dontrun{
#' # installs software, so not run by R CMD check:
#' install_dppca(package = "/path/to/dppca")   # a source checkout
#' }
#' @export
install_dppca <- function(envname = "r-dppca", package = "dppca", python = NULL, ...) {
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python)
  }
  if (utils::packageVersion("reticulate") < "1.38") {
    constraints <- tempfile(fileext = ".txt")
    on.exit(unlink(constraints))
    writeLines(c("numpy>=1.26,<2", "pyarrow<26"), constraints)
    reticulate::virtualenv_install(envname, c("numpy>=1.26,<2", package),
                                   pip_options = c("--constraint", constraints), ...)
  } else {
    reticulate::virtualenv_install(envname, package, ...)
  }
  python <- reticulate::virtualenv_python(envname)
  message("dppca installed in ", envname, ". Restart R, or set RETICULATE_PYTHON=", python)
  invisible(python)
}

# The imported module `dppca` (or `dppca.interop`), with a clear error when it is missing.
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
  problem <- .state$version_problem %||% .version_problem(.python_version())
  if (!is.null(problem)) .abort(problem, class = "dppca_python_version")
  .state$ready <- TRUE
  TRUE
}

#' Configuration of the Python side of dppcapy
#'
#' Like `tensorflow::tf_config()`: which Python reticulate uses, the versions of Python,
#' NumPy, reticulate, 'dppca' (found and needed) and 'dppcapy', and, when the Python
#' package cannot be used, why. Starts Python if needed; never raises an error.
#'
#' @return A list of class `dppca_config`: `available` (logical), `python`,
#'   `python_version`, `numpy_version`, `dppca_version`, `dppca_path`, `dppca_needed`,
#'   `dppcapy_version`, `reticulate_version` and `error` (`NULL` when available).
#' @examples
#' dppca_config()
#' @export
dppca_config <- function() {
  error <- tryCatch({.check_python(); NULL}, error = conditionMessage)
  info <- function(expr) tryCatch(expr, error = function(e) NA_character_)
  python <- reticulate::py_available(initialize = FALSE)
  structure(list(
    available = is.null(error),
    python = if (python) info(reticulate::py_exe()) else NA_character_,
    python_version = if (python) info(as.character(reticulate::py_config()$version)) else NA_character_,
    numpy_version = if (python) info(as.character(reticulate::import("numpy")$`__version__`)) else NA_character_,
    dppca_version = if (python) info(.python_version()) else NA_character_,
    dppca_path = if (python) info(as.character(reticulate::import("dppca")$`__file__`)) else NA_character_,
    dppca_needed = paste0(">= ", .python_needs[["minimum"]], ", < ", .python_needs[["below"]]),
    dppcapy_version = as.character(utils::packageVersion("dppcapy")),
    reticulate_version = as.character(utils::packageVersion("reticulate")),
    error = error), class = "dppca_config")
}

#' @rdname dppca_config
#' @param x A `dppca_config`.
#' @param ... Unused.
#' @export
print.dppca_config <- function(x, ...) {
  fields <- setdiff(names(x), c("available", "error"))
  cat("dppcapy: Python package 'dppca'", if (x$available) "available" else "NOT available", "\n")
  for (name in fields) cat(sprintf("  %-19s %s\n", paste0(name, ":"), x[[name]]))
  if (!is.null(x$error)) cat("  why:", x$error, "\n")
  invisible(x)
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
