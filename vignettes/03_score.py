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
# # Private PC score plots with `dppca`
#
# This tutorial mirrors the R package's `dp_score` article. A PC score plot shows every
# observation projected on two principal components; it is the most revealing picture of a
# dataset, and the least private one: each dot is a person. `dp_score` replaces the dots by
# a **private 2-D histogram** of the scores, drawn inside a **private frame**, and can draw
# **synthetic points** from it.
#
# The pipeline, each step a release on the call's privacy ledger:
#
# 1. PC directions `V`: with `g_dppca=True`, g-DPPCA (Kim & Jung, 2025);
# 2. scores `S = X V[:, axes]` (one row per observation; no sample mean is used);
# 3. a private square frame: smooth-sensitivity medians of the two score columns (its centre)
#    and a private 0.99-quantile of the distances to that centre (its radius), inflated by 20%;
# 4. equal-width bins over the frame, and private histograms of the bin counts:
#    `"add"` (Gaussian noise on every count) and `"sparse"` (Laplace noise on the non-empty
#    counts, kept above a threshold).
#
# Budget: a third each for directions, frame and histograms (half each for frame and
# histograms when `g_dppca=False`); asking for both histograms splits their share.

# %%
import numpy as np
import pandas as pd

from dppca import (dp_score, dp_score_group, dp_score_plot, dp_score_plot_group, load_adult,
                   load_gau_g, sampling_control, score_plot_control)

gau_g = load_gau_g()
gau = gau_g.drop(columns="group")
gau_g["group"].value_counts()

# %% [markdown]
# ## A private score histogram
#
# `gau` has five Gaussian clusters in 20 dimensions. We ask for the histograms of the scores on
# the first two private PCs with a total budget of eps = 3, delta = 1e-5. `bins` is left at its
# default: a rule that only uses public quantities (n and the noise level), printed in the
# summary.

# %%
res = dp_score(gau, eps=3, delta=1e-5, g_dppca=True, rng=2026)
print(res.summary())

# %% [markdown]
# The ledger shows every release: the g-DPPCA matrix, the four frame steps (a magnitude bound
# that fixes the domain of the medians, the two medians, the radius) and one release per
# histogram. They add up to the budget. Each histogram is a DataFrame with one row per bin,
# like the R package's value:

# %%
res.histograms["add"].head()

# %% [markdown]
# ## The score plot
#
# `dp_score_plot` draws the R package's panel grid: a row of histograms and a row of synthetic
# samples drawn from them. By default only private panels are drawn.

# %%
res = dp_score_plot(gau, eps=3, delta=1e-5, g_dppca=True, rng=2026)
res.figure

# %% [markdown]
# For teaching, `nonprivate=True` adds the NON-PRIVATE scatter and histogram on the same grid,
# labelled as such. Never publish those panels.

# %%
res = dp_score_plot(gau, eps=3, delta=1e-5, g_dppca=True, private_plot="histogram",
                    nonprivate=True, rng=2026)
res.figure

# %% [markdown]
# ### Why `g_dppca=True`?
#
# `g_dppca=True` is the default here (R's default is `FALSE`). `g_dppca=False` takes the
# **non-private** sample-covariance directions:
# the frame and histograms are private given the directions, but the directions themselves
# come from the data without noise, so the plot as a whole is not differentially private. The
# summary, the notes and the figure title say so:

# %%
res = dp_score(gau, eps=3, delta=1e-5, g_dppca=False, rng=1)
print(res.directions_private, res.summary().extra_txt[0])

# %% [markdown]
# ## Grouped score plots
#
# `dp_score_group` builds one frame and one grid from all rows and one histogram per group. The
# groups partition the rows, so one release covers them all. Group sizes are never released
# exactly: the summary shows private estimates read off the noisy histograms.

# %%
res = dp_score_plot_group(gau_g, "group", eps=3, delta=1e-5, g_dppca=True, rng=2026)
res.group_sizes.round(0)

# %%
res.figure

# %% [markdown]
# Each bin is coloured by the mix of its groups and shaded by its share of the whole mixture,
# with the fixed categorical palette (`tab10`). `score_plot_control` changes the look:

# %%
control = score_plot_control(group_colors={"group1": "black", "group2": "tab:orange",
                                           "group3": "tab:green", "group4": "tab:red",
                                           "group5": "tab:purple"}, hist_gamma=1.0)
res = dp_score_plot_group(gau_g, "group", eps=3, delta=1e-5, g_dppca=True, method="sparse",
                          private_plot="histogram", plot_control=control, rng=2026)
res.figure

# %% [markdown]
# ## Synthetic samples
#
# Sampling from a released histogram is post-processing: it costs no budget. `"uniform"` draws
# a point uniformly inside each drawn bin, `"center"` uses the bin centre; both add a small
# Gaussian jitter (in bin widths). `res.sample()` draws more from the same result, continuing
# its random stream (so seeded calls are reproducible).

# %%
res = dp_score_plot(gau, eps=3, delta=1e-5, g_dppca=True, method="sparse", private_plot="sample",
                    sampling_control=sampling_control(("uniform", "center"), sample_size=2000),
                    rng=7)
res.figure

# %%
res.sample(5, method="sparse", sampling="center")

# %% [markdown]
# ## How the budget matters
#
# The total variation distance between the private and the NON-PRIVATE histogram on the same
# grid (0 = identical, 1 = disjoint), averaged over a few seeds. `"add"` keeps every bin but
# spreads noise over the empty ones; `"sparse"` drops the bins below its threshold.

# %%
rows = []
for eps in [1, 3, 10]:
    for seed in range(3):
        r = dp_score(gau, eps=eps, delta=1e-5, g_dppca=True, nonprivate=True, rng=seed)
        truth = r.nonprivate_histogram["prob"]
        rows.append({"eps": eps, "bins": r.bins[0],
                     **{m: 0.5 * np.abs(r.histograms[m]["prob"] - truth).sum() for m in r.methods}})
pd.DataFrame(rows).groupby("eps").mean().round(3)

# %% [markdown]
# ## Adult, grouped by sex
#
# The five numeric columns of UCI Adult (n = 32,561), standardized with private scales, grouped
# by the `sex` label.

# %%
adult = load_adult(labels=True)
features = adult[["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]]
res = dp_score_plot_group(features, adult["sex"], eps=3, delta=1e-5, standardize=True,
                          g_dppca=True, method="sparse", rng=11)
res.figure

# %% [markdown]
# ## Differences from the R package
#
# * Everything released is private when `g_dppca=True`: scores are not centred by the sample
#   mean (the private frame centre is the centre), standardization uses private scales, group
#   sizes are estimated from the noisy histograms, and non-private panels only appear with
#   `nonprivate=True`.
# * The smooth-sensitivity medians run on a private domain with the standard
#   beta = eps / (2 ln(2/delta)); the radius uses a scale-free geometric grid and the Chebyshev
#   distance (the radius of a square), in O(n log n).
# * Releasing `"add"` and `"sparse"` splits the histogram budget (R spends it twice), and the
#   Gaussian noise uses the analytic calibration (`calibration="classic"` gives R's).
# * `bins` has a default; unknown method names, repeated axes and tiny groups are errors; an
#   empty private histogram gives zero probabilities with a warning instead of an error.
