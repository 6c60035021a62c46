# `$` and `[[` on private results: an element that a private-by-default result withholds
# (the NON-PRIVATE `score`, `nonprivate` and `scatter` of 'dppca''s structures) is an R
# error naming `nonprivate = TRUE`, not a silent NULL that old scripts would print.

.withheld <- c("score", "nonprivate", "scatter")

.element <- function(x, name, exact) {
  if (is.character(name) && length(name) == 1L && !name %in% names(x) && name %in% .withheld) {
    .abort("`", name, "` is NON-PRIVATE and was not computed: this result holds private ",
           "numbers only. Rerun the call with `nonprivate = TRUE` (or set ",
           "options(dppcapy.nonprivate = TRUE)) to add it, for comparison only.",
           class = "dppca_withheld_error")
  }
  .subset2(x, name, exact = exact)
}

#' Elements of dppcapy results
#'
#' `$` and `[[` work as on a list, except that asking a private result for a NON-PRIVATE
#' element that it withholds (`score` and `nonprivate` of [dp_score()] and [dp_scree()]
#' results, a group's `nonprivate` in `$groups`, `sample$nonprivate`, `plot$scatter` and
#' `plot$nonprivate` of [dp_score_plot()]) is an error that
#' says to rerun with `nonprivate = TRUE`; 'dppca' scripts written for the full structure
#' then fail loudly instead of printing `NULL`.
#'
#' @param x A result of [dp_scree()], [dp_score()], [dp_score_group()],
#'   [dp_score_plot()] or [dp_score_plot_group()] (or its `plot` element).
#' @param name,i The element's name (or position for `[[`).
#' @param exact As for lists.
#' @param ... Unused.
#' @return The element.
#' @examples
#' if (dppca_available()) {
#'   res <- dp_score(gau[1:500, ], eps = 2, delta = 1e-4, bins = 8, method = "add", seed = 1)
#'   head(res$add)
#'   try(res$score)   # withheld: rerun with nonprivate = TRUE
#' }
#' @name dppca-extract
NULL

#' @rdname dppca-extract
#' @export
`$.dppca_score` <- function(x, name) .element(x, name, exact = FALSE)

#' @rdname dppca-extract
#' @export
`[[.dppca_score` <- function(x, i, exact = TRUE, ...) .element(x, i, exact)

#' @rdname dppca-extract
#' @export
`$.dppca_scree` <- function(x, name) .element(x, name, exact = FALSE)

#' @rdname dppca-extract
#' @export
`[[.dppca_scree` <- function(x, i, exact = TRUE, ...) .element(x, i, exact)

#' @rdname dppca-extract
#' @export
`$.dppca_score_plot` <- function(x, name) .element(x, name, exact = FALSE)

#' @rdname dppca-extract
#' @export
`[[.dppca_score_plot` <- function(x, i, exact = TRUE, ...) .element(x, i, exact)

#' @rdname dppca-extract
#' @export
`$.dppca_panels` <- function(x, name) .element(x, name, exact = FALSE)

#' @rdname dppca-extract
#' @export
`[[.dppca_panels` <- function(x, i, exact = TRUE, ...) .element(x, i, exact)

#' @rdname dppca-extract
#' @export
`$.dppca_withholding` <- function(x, name) .element(x, name, exact = FALSE)

#' @rdname dppca-extract
#' @export
`[[.dppca_withholding` <- function(x, i, exact = TRUE, ...) .element(x, i, exact)
