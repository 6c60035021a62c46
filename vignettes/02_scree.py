# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Private scree plots and PVE with `dp_scree`
#
# This tutorial mirrors the R package's `dp_scree` article. A scree plot shows the
# variance along each principal component (the eigenvalues of the covariance) and the
# proportion of variance explained (PVE). Following Kim & Jung (2025, Remark 2.1), we
# first estimate the directions privately with g-DPPCA, then the variance of the
# scores along each direction, also privately.
#
# **How the variance is estimated.** For a direction v the scores y_i = v'x_i have
# sample variance
#
#     s^2 = 2 / (n (n-1)) * sum_{i<j} u_ij,    u_ij = (y_i - y_j)^2 / 2,
#
# an average over pairs that never uses the sample mean. Replacing one row changes only
# the n - 1 pairs that contain it, so if every pair value is clamped to an interval of
# width W, the average moves by at most 2W/n: Gaussian noise of that scale makes it
# private. The three methods differ in how they clamp:
#
# | method | estimator of the pair mean | self-tuned threshold |
# |---|---|---|
# | `clipped` | mean of min(u, C) | C = 2.4 x private 90% quantile of the pair values |
# | `pmwm` | winsorized mean, clamp(u, L, U) | private quantiles at a budget-aware level, widened |
# | `huber` | Huber M-estimate (noisy gradient descent) | tau = 2 x private 90% quantile, from the private median |
#
# The R package squares scores centred by their *sample mean*; one changed row moves
# that mean and therefore every score, so its stated sensitivities do not hold. The
# pair form above is translation invariant and needs no private mean.

# %%
import pandas as pd

from dppca import (clipped_control, dp_pc_dir, dp_scree, dp_scree_plot, huber_control,
                   load_adult, load_gau, pmwm_control, scree_plot_control)

gau = load_gau()
gau.shape

# %% [markdown]
# ## A private scree in one call
#
# With no control every method tunes itself privately, and with `g_dppca=True` the
# directions are private too. The budget (eps, delta) covers everything: the ledger
# lists every release. `nonprivate=True` adds the **NON-PRIVATE** reference
# (sample-covariance eigenvalues) for comparison; leave it out when publishing.

# %%
res = dp_scree(gau, k=5, eps=1, delta=1e-5, g_dppca=True, rng=2026, nonprivate=True)
print(res.summary())

# %% [markdown]
# `std err` is the standard deviation of the privacy noise of each raw estimate, and
# the interval is raw -/+ 1.96 s.e. (noise only: it ignores sampling error, clipping
# bias and the error of the private directions). `scree` is the non-negative,
# non-increasing fit of the raw values (`mono=True`, as in R).
#
# The tables are pandas DataFrames:

# %%
res.scree.round(3)

# %%
res.ledger["clipped"].to_frame()[["step", "mechanism", "sensitivity", "noise_scale", "eps", "delta"]]

# %% [markdown]
# The Gaussian releases are composed as Gaussian differential privacy (Dong, Roth & Su,
# 2022): each gets a share of one budget, and the `eps`/`delta` columns show those
# shares. This is much cheaper than splitting eps and delta across the steps.
#
# ## PVE: share of the total variance
#
# R's `pve` divides each value by the sum of the k values shown, so with k=1 it is
# always 1. Here `pve` divides by the total variance (the trace of the covariance),
# estimated privately from random pairs of rows; R's definition is kept as
# `pve_among_k`.

# %%
print(f"private total variance {res.trace:.1f} (noise s.e. {res.trace_std_err:.2f}); "
      f"NON-PRIVATE {res.total_variance['nonprivate']:.1f}")
pd.concat({"pve": res.pve, "pve_among_k": res.pve_among_k}, axis=1).round(3)

# %%
res.cumulative_pve.round(3)

# %% [markdown]
# ## Comparing the three methods
#
# Several methods in one call share the directions and the trace and **split** the rest
# of the budget, so the whole result stays (eps, delta)-DP. To compare methods each at
# the full budget, compute the private directions once and pass them to separate calls
# (each call's ledger counts the directions; releasing all of them costs the sum).

# %%
directions = dp_pc_dir(gau, k=5, g_dppca=True, eps=0.7, delta=5e-6, rng=1)
by_method = {m: dp_scree(gau, 5, method=m, eps=1, delta=1e-5, g_dppca=True,
                         directions=directions, rng=7).scree[m] for m in ("clipped", "pmwm", "huber")}
table = res.scree[["nonprivate"]].assign(**by_method)
table.round(2)

# %% [markdown]
# ## The plot
#
# `dp_scree_plot` runs `dp_scree` and draws one line per method with 95% noise error
# bars (on the scree scale). The NON-PRIVATE curve appears only with `nonprivate=True`
# and the title says so.

# %%
plotted = dp_scree_plot(gau, 5, method=("clipped", "huber"), eps=2, delta=1e-5, g_dppca=True,
                        type="scree", rng=3, nonprivate=True,
                        plot_control=scree_plot_control(col={"huber": "darkorange"}))
plotted.figure

# %%
plotted.plot(type="pve")

# %% [markdown]
# ## Controls
#
# Every control argument has a default. The R package's names are kept, so R-style
# tuning works too; for instance the values of its README (compare with the defaults
# above):

# %%
readme = dp_scree(gau, 5, method=("clipped", "pmwm", "huber"), eps=3, delta=1e-4, g_dppca=True,
                  rng=5, control={"clipped": clipped_control(C_clip=3),
                                  "pmwm": pmwm_control(a=0, b=50, trim_const=10, eta=0.01, widen=0),
                                  "huber": huber_control(k_min_m2=-10, k_max_m2=10, m2_frac=0.25)})
readme.scree.round(2)

# %% [markdown]
# A fixed threshold C_clip = 3 clips pair values whose mean is 37: the estimate cannot
# exceed 3. Public thresholds need a public scale; self-tuning finds it privately.
#
# ## Non-private directions (`g_dppca=False`)
#
# R's default (`g_dppca = FALSE`; here `g_dppca=True` is the default, so ask for it)
# computes the directions without noise. The scree values are then private
# only *given* those directions, which depend on every row: the result is **not**
# differentially private end to end, and the summary says so.

# %%
text = str(dp_scree(gau, 2, eps=1, delta=1e-5, g_dppca=False, rng=0))
print(text[text.index("[1]"):text.index("[2]")])

# %% [markdown]
# ## A real dataset: adult
#
# Five numeric columns of UCI Adult, standardized with private scales (part of the
# direction budget). Capital gain and loss are mostly zero with very long tails; the
# robust g-DPPCA directions follow the bulk, and clipping trims the tails.

# %%
adult = load_adult()
adult_res = dp_scree(adult, 3, eps=2, delta=1e-5, standardize=True, g_dppca=True, rng=11,
                     nonprivate=True)
adult_res.scree.round(3)

# %% [markdown]
# ## Differences from the R package
#
# * pair differences instead of sample-mean centring (R's sensitivities are false);
# * `g_dppca=False` results are labelled as not private end to end;
# * every control has a private self-tuning default; R's tuning still works;
# * the k components are released jointly and all Gaussian steps compose as Gaussian DP;
# * several methods in one call split the budget instead of each spending all of it;
# * `pve` uses a private trace (R's value is `pve_among_k`), plus `cumulative_pve`;
# * noise standard errors and intervals;
# * R's Huber histogram used Laplace(1/eps), which is 2 eps-DP under replace-one; fixed.
