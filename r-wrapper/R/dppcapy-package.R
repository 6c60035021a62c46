#' dppcapy: differentially private PCA with the Python 'dppca' core
#'
#' The R interface of the R package 'dppca' ([dp_pc_dir()], [dp_scree()],
#' [dp_scree_plot()], [dp_score()], [dp_score_plot()], [dp_score_group()],
#' [dp_score_plot_group()] and their control constructors) computed by the Python
#' package 'dppca' through 'reticulate'. Python starts on first use; see
#' [install_dppca()] and [dppca_available()]. Every result carries its privacy ledger
#' ([dp_ledger()]) and prints the Python summary.
#'
#' Results are private by default: NON-PRIVATE reference numbers (the `nonprivate`
#' entries, exact scores and exact group sizes of 'dppca') are computed only when a call
#' passes `nonprivate = TRUE`, or after `options(dppcapy.nonprivate = TRUE)`.
#'
#' @examples
#' if (dppca_available()) {
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, eps = 1, delta = 1e-5, seed = 1)
#'   V
#'   dp_ledger(V)
#' }
#' @keywords internal
"_PACKAGE"
