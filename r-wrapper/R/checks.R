# Integer-valued arguments: R users write 50, not 50L. Whole doubles become integers (so
# that Python receives an int); anything else is an R error naming the argument. Ranges
# (k <= p, T >= 1, ...) are checked by the Python core with the same messages as in Python.
.whole <- function(x, name, lengths = 1L, null_ok = TRUE) {
  if (is.null(x) && null_ok) return(NULL)
  what <- if (max(lengths) > 1L) "one or two whole numbers" else "a whole number"
  if (!is.numeric(x) || is.object(x) || !length(x) %in% lengths) {
    .abort("`", name, "` must be ", what, if (null_ok) " or NULL", "; got ",
           paste(deparse(x), collapse = " "), class = "dppca_type_error")
  }
  if (anyNA(x) || any(!is.finite(x)) || any(x != round(x)) || any(abs(x) > .Machine$integer.max)) {
    .abort("`", name, "` must be ", what, " (e.g. 50, not 50.5); got ",
           paste(deparse(x), collapse = " "), class = "dppca_value_error")
  }
  out <- as.integer(x)
  names(out) <- names(x)
  out
}

# `noise` for a Python function that calls dp_pc_dir: passed when the function takes it;
# the default "tight" is what every version does, so it is then simply left out.
.noise_arg <- function(fn, noise) {
  if (identical(noise, "tight") && !.py_accepts(fn, "noise")) return(list())
  if (!.py_accepts(fn, "noise")) {
    .abort("`noise = \"", noise, "\"` needs a Python 'dppca' whose ", "scree and score ",
           "functions take `noise`; this one does not (dp_pc_dir() does).",
           class = "dppca_value_error")
  }
  list(noise = noise)
}

.designs <- c("auto", "complete", "incomplete")

# `design` (one of .designs; unique prefixes accepted, the whole default vector is "auto" as
# with match.arg) and `pairs_per_row` (NULL or a whole number) for a Python function `fn`.
# Ranges (1 <= pairs_per_row <= n - 1, none with "complete") are checked by the Python core.
# The defaults are left out for a Python 'dppca' that predates them.
.design_args <- function(fn, design, pairs_per_row) {
  if (identical(design, .designs)) design <- "auto"
  design <- .match_choices(design, .designs, "design")
  if (length(design) != 1L) .bad("design", 'one of "auto", "complete", "incomplete"', design)
  pairs_per_row <- .whole(pairs_per_row, "pairs_per_row")
  if (.py_accepts(fn, "design")) return(list(design = design, pairs_per_row = pairs_per_row))
  if (identical(design, "auto") && is.null(pairs_per_row)) return(list())
  .abort("`design` and `pairs_per_row` need a Python 'dppca' whose dp_pc_dir() and ",
         "dp_scree() take them; this one does not. Run dppcapy::install_dppca().",
         class = "dppca_value_error")
}

.missing_options <- c("auto", "pairwise", "median", "drop")
.neighbourings <- c("replace", "add_remove")

# `missing` (the public policy for NA cells: one of .missing_options, unique prefixes
# accepted; one number; or numbers named by column) and `neighbouring` (one of
# .neighbourings, match.arg-style: the whole default vector is "replace") for a Python
# function `fn`. Their values (known names, finite numbers, known columns, which policy goes
# with which relation) are checked by the Python core, whose errors name the argument; a
# Python core that predates them gets neither, and an error when a value is not the default.
.missing_args <- function(fn, missing, neighbouring) {
  if (identical(neighbouring, .neighbourings)) neighbouring <- "replace"
  if (!is.character(neighbouring) || length(neighbouring) != 1L ||
      !.expand_choices(neighbouring, .neighbourings) %in% .neighbourings) {
    .bad("neighbouring", 'one of "replace", "add_remove"', neighbouring)
  }
  neighbouring <- .expand_choices(neighbouring, .neighbourings)
  out <- list(missing = .missing_value(missing), neighbouring = neighbouring)
  accepted <- vapply(names(out), function(name) .py_accepts(fn, name), logical(1))
  default <- c(missing = identical(out$missing, "auto"), neighbouring = neighbouring == "replace")
  if (any(!accepted & !default)) {
    .abort("`missing` and `neighbouring` need a Python 'dppca' whose entry points take them; ",
           "this one does not. Run dppcapy::install_dppca().", class = "dppca_value_error")
  }
  out[accepted]
}

# `missing` for Python: a string (prefixes expanded), one double, or a named list of doubles
# (a dict column -> value). NA values go on as NaN, for Python to refuse as not finite.
.missing_value <- function(missing) {
  named <- !is.null(names(missing))
  if (is.character(missing) && length(missing) == 1L && !named && !is.na(missing)) {
    return(.expand_choices(missing, .missing_options))
  }
  if (is.numeric(missing) && length(missing) == 1L && !named && !is.object(missing)) {
    return(as.double(missing))
  }
  if ((is.numeric(missing) || is.list(missing)) && length(missing) > 0L && named &&
      all(nzchar(names(missing))) &&
      all(vapply(missing, function(v) is.numeric(v) && length(v) == 1L, logical(1)))) {
    return(lapply(as.list(missing), as.double))
  }
  .abort("`missing` must be one of \"auto\", \"pairwise\", \"median\", \"drop\", one ",
         "finite number, or finite numbers named by column (c(age = 0)); got ",
         paste(deparse(missing), collapse = " "), class = "dppca_type_error")
}

# Declared public metadata, `bounds` and `scale`, for any Python entry point (one path for
# dp_pc_dir, dp_scree*, dp_score*): a list to splice into the call, empty when both are
# NULL. `bounds`: a named list of c(lower, upper), a data frame codebook (column, lower,
# upper, scale, units) or a CSV/JSON path. `scale`: the same codebooks, a named numeric
# vector or list (some columns), or an unnamed numeric vector of p scales. Contents (fields,
# lower < upper, scales > 0, known columns) are checked by the Python core, whose errors
# name the argument.
.declared_args <- function(bounds = NULL, scale = NULL) {
  out <- list()
  if (!is.null(bounds)) out$bounds <- .codebook(bounds, "bounds", "a named list of c(lower, upper)")
  if (!is.null(scale)) {
    out$scale <- if (is.numeric(scale) && is.null(names(scale))) as.list(as.numeric(scale))
                 else .codebook(scale, "scale", "a named numeric vector or list")
  }
  out
}

.codebook <- function(x, name, named) {
  rule <- paste0("NULL, ", named, ", a data frame codebook (column, lower, upper, scale, ",
                 "units) or the path of a CSV/JSON codebook")
  if (is.data.frame(x)) return(x)
  if (is.character(x) && length(x) == 1L && !is.na(x)) return(x)
  if ((is.list(x) || is.numeric(x)) && length(x) > 0L && !is.null(names(x)) &&
      all(nzchar(names(x))) && all(vapply(x, is.numeric, logical(1)))) {
    return(lapply(as.list(x), function(v) if (length(v) > 1L) as.list(as.numeric(v)) else as.numeric(v)))
  }
  .abort("`", name, "` must be ", rule, "; got ", paste(deparse(x), collapse = " "),
         class = "dppca_type_error")
}
