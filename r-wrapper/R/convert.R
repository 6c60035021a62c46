# From Python results to R objects, and from R arguments to Python ones.
#
# Python describes every R object it returns as a tree of nodes
# (dppca.interop.r_payload: vectors, matrices, data frames, lists, with names, classes
# and attributes). .as_r() builds the tree here; dppca.interop builds the same tree with
# rpy2, so the reticulate and rpy2 routes give identical objects.

# The R object of a Python dppca result (its ledgers carry the call's `missing =` policy as
# the attribute `missing` when the Python result records one).
.from_py <- function(result) .as_r(.call(.py("bridge")$r_payload(result)))

# An R data.frame of a pandas DataFrame, built through the same node tree (reticulate 1.28 does
# not convert every pandas 2 frame itself).
.r_frame <- function(frame) .as_r(.call(.py("bridge")$r_data_frame(frame)))

.as_r <- function(node) {
  if (is.null(node)) return(NULL)
  out <- switch(node$r,
    vector = .r_vector(node),
    matrix = .r_matrix(node),
    data.frame = .r_data_frame(node),
    list = stats::setNames(lapply(node$values, .as_r), .chr(node$names)),
    .abort("unknown R node '", node$r, "' from dppca.interop"))
  for (name in names(node$attributes)) attr(out, name) <- .as_r(node$attributes[[name]])
  if (!is.null(node$class)) class(out) <- .chr(node$class)
  out
}

.chr <- function(x) if (is.null(x)) NULL else as.character(unlist(x))

.r_vector <- function(node) {
  values <- as.vector(unlist(node$values))
  values <- switch(node$mode, double = as.double(values), integer = as.integer(values),
                   character = as.character(values), logical = as.logical(values))
  names(values) <- .chr(node$names)
  values
}

.r_matrix <- function(node) {
  values <- node$values
  storage.mode(values) <- "double"
  dimnames(values) <- list(.chr(node$rownames), .chr(node$colnames))
  values
}

.r_data_frame <- function(node) {
  columns <- stats::setNames(lapply(node$values, .as_r), .chr(node$names))
  n <- if (length(columns)) length(columns[[1]]) else 0L
  rows <- if (is.null(node$row_names)) c(NA_integer_, -n) else .chr(node$row_names)
  structure(columns, class = "data.frame", row.names = rows)
}

# A data.frame for Python: a matrix keeps its column names (pandas columns); a matrix
# without them gets V1..Vp in Python, and `had_names` lets callers drop them again as R does.
# With `path_ok` (dp_pc_dir, dp_scree), a character string is a path to Parquet/CSV files,
# passed to Python as a string (read lazily by dask there). With `nan` (the default) R's NA
# cells reach Python as NaN (.nan_cells); without it columns keep their R types (group labels).
.as_py_data <- function(X, path_ok = FALSE, nan = TRUE) {
  if (is.data.frame(X)) return(if (nan) .nan_cells(X) else X)
  if (is.character(X) && is.null(dim(X))) {
    if (path_ok) return(.py_path(X))
    .abort("`X` must be a numeric matrix or data frame; a path to Parquet/CSV files is ",
           "accepted by dp_pc_dir(), dp_scree() and dp_scree_plot() only",
           class = "dppca_type_error")
  }
  if (!is.matrix(X) && !(is.atomic(X) && !is.null(dim(X)))) {
    .abort("`X` must be ", if (path_ok) "a numeric matrix, a data frame or one path to " else
             "a numeric matrix or data frame", if (path_ok) "Parquet/CSV files",
           "; got an object of class ", paste(class(X), collapse = "/"),
           class = "dppca_type_error")
  }
  data <- as.data.frame(X, stringsAsFactors = FALSE)
  if (nan) .nan_cells(data) else data
}

# Integer and logical columns as doubles, so that an NA cell reaches Python as NaN (a missing
# cell, handled by the call's public `missing =` policy): reticulate sends an integer NA as
# -2147483648 and a logical NA as True. Every such column is converted, with or without NA,
# so that the column types Python sees never depend on where the holes are; TRUE/FALSE become
# 1/0 as in R's arithmetic (and a column that read.csv() reads as logical because all its
# cells are empty becomes a column of NaN). Factors and text are left for Python to refuse.
.nan_cells <- function(data) {
  convert <- vapply(data, function(column) {
    (is.integer(column) || is.logical(column)) && !is.object(column) && is.null(dim(column))
  }, logical(1))
  data[convert] <- lapply(data[convert], as.double)
  data
}

# One path (a Parquet file or directory, a .csv file, or a glob of them) that exists, with
# `~` expanded for Python; anything else is an R error naming `X`.
.py_path <- function(X) {
  if (length(X) != 1L || is.na(X) || !nzchar(X)) {
    .abort("`X` given as a path must be one string; got ", paste(deparse(X), collapse = " "),
           class = "dppca_type_error")
  }
  path <- path.expand(X)
  if (!length(Sys.glob(path))) {
    .abort("`X` = \"", X, "\" does not exist (working directory: ", getwd(), ")",
           class = c("dppca_file_error", "dppca_value_error"))
  }
  path
}

.had_names <- function(X) is.data.frame(X) || is.character(X) || !is.null(colnames(X))

# The Python seed of a call: `seed` when given, else drawn from R's RNG so that
# set.seed() makes the call reproducible.
.seed <- function(seed) {
  if (is.null(seed)) return(sample.int(.Machine$integer.max, 1L))
  if (!is.numeric(seed) || length(seed) != 1L || !is.finite(seed) || seed < 0 ||
      seed != round(seed) || seed > .Machine$integer.max) {
    .abort("`seed` must be NULL or one non-negative integer; got ", deparse(seed)[1],
           class = "dppca_value_error")
  }
  as.integer(seed)
}

# R's single-logical check, done in R because reticulate turns NA into Python's True.
.check_flags <- function(...) {
  flags <- list(...)
  for (name in names(flags)) {
    x <- flags[[name]]
    if (!is.logical(x) || length(x) != 1L || is.na(x)) {
      .abort("`", name, "` must be TRUE or FALSE; got ", deparse(x)[1], class = "dppca_type_error")
    }
  }
  invisible(TRUE)
}

# `standardize`: TRUE, FALSE or "rank" (the scale-free rank path: PCA of the latent
# Gaussian-copula correlation from a private Kendall's tau matrix), passed to Python as is.
.check_standardize <- function(standardize) {
  if (identical(standardize, "rank")) return(invisible(TRUE))
  if (!is.logical(standardize) || length(standardize) != 1L || is.na(standardize)) {
    .abort("`standardize` must be TRUE, FALSE or \"rank\"; got ", deparse(standardize)[1],
           class = "dppca_type_error")
  }
  invisible(TRUE)
}

# Expand unique prefixes of choices as R's match.arg does; unknown names are passed on
# unchanged so that Python reports them (no silent dropping).
.expand_choices <- function(x, choices) {
  if (!is.character(x)) return(x)
  hit <- pmatch(x, choices, duplicates.ok = TRUE)
  ifelse(is.na(hit), x, choices[hit])
}
