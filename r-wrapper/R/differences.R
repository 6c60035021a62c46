#' Deliberate differences from the R package 'dppca'
#'
#' 'dppcapy' keeps 'dppca''s function names, argument names, defaults and return
#' structures except where privacy or a clear error needs otherwise. Every deliberate
#' difference:
#'
#' | What | 'dppca' | 'dppcapy' | Why |
#' |---|---|---|---|
#' | `g_dppca` default of [dp_scree()], [dp_scree_plot()], [dp_score()], [dp_score_group()], [dp_score_plot()], [dp_score_plot_group()] | `FALSE` | `TRUE` | a call given a budget is private end to end |
#' | `g_dppca` default of [dp_pc_dir()] | `FALSE` | `TRUE` when `eps` is given | idem; `dp_pc_dir(X, k)` stays non-private PCA |
#' | NON-PRIVATE elements (`score`, `nonprivate`, exact group sizes, `plot$scatter`) | always returned | only with `nonprivate = TRUE` (or `options(dppcapy.nonprivate = TRUE)`); asking a private result for them is an error | private by default |
#' | g-DPPCA noise | sensitivity \eqn{4/n}, classic calibration | sensitivity \eqn{2\sqrt{2}/n}, analytic calibration; `noise = "r_dppca"` reproduces 'dppca' exactly | tighter proof, less noise |
#' | group sizes `n` in [dp_score_group()] | exact | private estimates | exact sizes are not private |
#' | group domain | labels seen in the data, order of first appearance | factor levels (all, in level order) are the public domain; other labels are selected privately and sorted | the label set must not leak |
#' | scores | centred at the sample mean | centred at the private frame centre | the mean is not private |
#' | `pve` of [dp_scree()] | share of the sum of the k values | share of the private total variance (`pve_among_k` attribute: 'dppca''s) | PVE of the whole data |
#' | several scree methods in one call | each spends the whole budget | they share the directions and split the budget | the result as a whole is (eps, delta)-DP |
#' | [huber_control()] `mu0` | `0` | `NULL`: a private median of the pair values | a data-scaled start; pass `mu0 = 0` for 'dppca''s |
#' | unknown sampling methods in [sampling_control()] | dropped silently | an error | no silent dropping |
#' | `show_group_legend` of [score_plot_control()] | `FALSE` | `TRUE` | groups need a key |
#' | histogram panels | opacity only | a colour bar / legend saying "probability per cell" (grouped: "share of all rows per cell") | the shading has a meaning |
#' | axis labels of score panels | `PC1`, `PC2` | `PC1 score (data units)` or `(standardized units)` | units |
#' | integer-valued arguments | whole doubles accepted | whole doubles accepted; 50.5 is an error naming the argument | same, with a clear message |
#' | `print()` of [dp_pc_dir()] | the matrix | the matrix plus a one-line privacy footer; `summary()` gives the full summary | the guarantee travels with the numbers |
#' | `cpp.option` | chooses the C++ code | accepted and ignored | the Python core is always fast |
#' | `seed`, `calibration`, `noise`, `nonprivate` | absent | added | reproducibility and privacy options |
#' | `NA` cells of `X` | no policy | a public `missing =` policy on every private function (default `"auto"`: pairwise-present Kendall's tau for g-DPPCA's directions, private column medians elsewhere (the rank path included), on the ledger); never an error | a refusal or a result that depended on where the holes are would reveal them |
#' | neighbouring datasets | one row replaced, n public | `neighbouring = "replace"` (the same) or `"add_remove"` (n private, a noisy count on the ledger) | data whose row count is itself sensitive |
#'
#' @name dppcapy-differences
#' @examples
#' # 'dppca''s g-DPPCA noise, for reproducing its numbers:
#' if (dppca_available()) {
#'   V <- dp_pc_dir(gau[1:300, ], k = 2, eps = 1, delta = 1e-5, noise = "r_dppca", seed = 1)
#'   dp_ledger(V)
#' }
NULL
