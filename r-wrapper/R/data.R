#' Five 20-dimensional Gaussian clusters
#'
#' The R package 'dppca''s example data: 5 groups of 1000 rows drawn in R (seed 123,
#' `MASS::mvrnorm`), d = 20. Means: group 1 at 0; group 2 at 5 on V1-V5; group 3 at -3
#' on V1-V5; group 4 at -1 on V6-V10; group 5 at 3 on V6-V10 (0 elsewhere).
#' Covariances: I, I, 5I, 5I, 8I.
#'
#' @format A data frame with 5000 rows and 20 numeric columns `V1..V20`.
#' @source Synthetic; the same numbers as `dppca::gau` and Python `dppca.load_gau()`.
#' @examples
#' dim(gau)
#' round(colMeans(gau)[1:6], 2)
"gau"

#' Gaussian clusters with their group label
#'
#' [gau] plus the cluster label, for grouped score plots ([dp_score_group()]).
#'
#' @format A data frame with 5000 rows: `V1..V20` (numeric) and `group` (character,
#'   `"group1"`..`"group5"`, 1000 consecutive rows each).
#' @source Synthetic; the same numbers as `dppca::gau_g` and Python `dppca.load_gau_g()`.
#' @examples
#' table(gau_g$group)
"gau_g"

#' Numeric columns of the UCI Adult data
#'
#' The 5 numeric columns of the UCI Adult training file, as 'dppca' ships them. 21,454
#' rows duplicate another row (the Python core handles duplicates; the R package's
#' g-DPPCA refuses them).
#'
#' @format A data frame with 32561 rows and 5 integer columns: `age`, `education_num`,
#'   `capital_gain`, `capital_loss`, `hours_per_week`.
#' @source Becker, B. and Kohavi, R. (1996). Adult. UCI Machine Learning Repository,
#'   \doi{10.24432/C5XW20}. CC BY 4.0.
#' @examples
#' summary(adult$age)
#' mean(duplicated(adult))   # the share of rows that repeat an earlier row
"adult"
