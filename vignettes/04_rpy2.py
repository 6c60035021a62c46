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
# # `dppca` next to R: the rpy2 bridge
#
# Many analyses live half in R and half in Python. This tutorial runs R **inside** the
# Python process with [rpy2](https://rpy2.github.io) (`pip install "dppca[r]"`; rpy2 < 3.6
# for R < 4.5) and shows the two directions of traffic:
#
# 1. an R `data.frame` comes into Python as a pandas DataFrame, names kept;
# 2. `dppca` results go to R as **the objects the R package `dppca` returns** (a p x k
#    matrix of directions; a list with the frame and one data.frame per histogram), plus
#    their privacy ledger, so R code (here ggplot2) draws them.
#
# Everything converts through `dppca.interop`: one rpy2 `Converter` and the helpers
# `to_r` / `from_r`. The R package `dppcapy` (reticulate) builds its objects from the same
# Python description, so both routes give the same R object.

# %%
import pandas as pd
import rpy2.robjects as ro
from IPython.display import Image

import dppca
from dppca import interop

print(ro.r("R.version.string")[0])

# %% [markdown]
# ## An R data.frame comes in
#
# We simulate the data in R, as an R user would have it: three groups of 1,000
# observations in 6 dimensions, the groups apart along two directions.

# %%
ro.r("""
set.seed(1)
n <- 1000
shift <- rbind(c(0, 0, 0, 0, 0, 0), c(4, 4, 0, 0, 0, 0), c(0, 0, 4, 4, 0, 0))
clusters <- do.call(rbind, lapply(1:3, function(g) {
  x <- matrix(rnorm(n * 6), n, 6) + matrix(shift[g, ], n, 6, byrow = TRUE)
  data.frame(x, group = paste0("g", g))
}))
names(clusters)[1:6] <- c("height", "weight", "income", "savings", "age", "tenure")
""")
clusters = interop.from_r(ro.globalenv["clusters"])
clusters.head(3)

# %% [markdown]
# Column names and row names survived (`from_r` turns a data.frame into a DataFrame with
# the row names as index; a named vector becomes a Series, a named list a dict).

# %% [markdown]
# ## Private directions, handed back to R
#
# `dp_pc_dir` with `g_dppca=True` spends the whole budget (eps = 2, delta = 1e-5) on one
# release of the noisy Kendall's tau matrix; the directions are post-processing.

# %%
features = clusters.drop(columns="group")
directions = dppca.dp_pc_dir(features, k=2, g_dppca=True, eps=2, delta=1e-5, rng=7)
print(directions.summary())

# %% [markdown]
# In R the result is the R package's p x k matrix (rows = variables, columns PC1, PC2)
# with the ledger as an attribute:

# %%
ro.globalenv["V"] = interop.to_r(directions)
print(ro.r("round(unclass(V)[, 1:2], 3)"))
print(ro.r('attr(V, "ledger")[, c("step", "mechanism", "eps", "delta")]'))

# %% [markdown]
# The same can be done for a whole block with the converter: inside its context every
# dppca result (and every pandas DataFrame) becomes its R object on assignment.

# %%
with interop.converter().context():
    ro.globalenv["V2"] = directions
print(ro.r("identical(V, V2)")[0])

# %% [markdown]
# ## Plotting in R with ggplot2
#
# R projects its own data on the private directions and draws them with ggplot2. (The
# projected points are the individuals: this plot is for the analyst, it is **not** a
# private release; the next section draws a private one.)

# %%
ro.r("""
library(ggplot2)
scores <- as.matrix(clusters[, rownames(V)]) %*% unclass(V)[, 1:2]
points <- data.frame(PC1 = scores[, 1], PC2 = scores[, 2], group = clusters$group)
p <- ggplot(points, aes(PC1, PC2, colour = group)) +
  geom_point(alpha = 0.4, size = 0.8) + coord_equal() + theme_minimal() +
  labs(title = "NON-PRIVATE points on the private PC directions",
       x = "PC1 score (data units)", y = "PC2 score (data units)", colour = "Group")
ggsave("rpy2_directions.png", p, width = 6, height = 4.5, dpi = 80)
""")
Image("rpy2_directions.png")

# %% [markdown]
# ## A private score histogram, drawn by R
#
# `dp_score_group` releases one private histogram per group inside a private frame; in R
# it is the R package's list (`frame`, and per group `n` and one data.frame per method with
# columns xmin, xmax, ymin, ymax, prob). `g_dppca=True` makes the directions private too, so
# the whole picture is (eps, delta)-DP.

# %%
score = dppca.dp_score_group(clusters, "group", eps=3, delta=1e-5, bins=(16, 16), method="add",
                             g_dppca=True, rng=7)
ro.globalenv["S"] = interop.to_r(score)
print(ro.r("names(S)"), ro.r("names(S$groups$g1)"))
print(ro.r("head(S$groups$g1$add, 3)"))

# %%
ro.r("""
bins <- do.call(rbind, lapply(names(S$groups), function(g) {
  cbind(S$groups[[g]]$add, group = g, share = S$groups[[g]]$n / sum(sapply(S$groups, `[[`, "n")))
}))
bins$shade <- bins$prob * bins$share / max(bins$prob * bins$share)
p <- ggplot(bins) +
  geom_rect(aes(xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax, fill = group, alpha = shade)) +
  scale_alpha_identity() + coord_equal(xlim = S$frame$xlim, ylim = S$frame$ylim, expand = FALSE) +
  theme_minimal() +
  labs(title = "Private score histograms by group (eps = 3)",
       x = "PC1 score (data units, from the private centre)", y = "PC2 score", fill = "Group")
ggsave("rpy2_score.png", p, width = 7, height = 5, dpi = 80)
""")
Image("rpy2_score.png")

# %% [markdown]
# The three groups are visible in the private panel. The ledger travels with the result:

# %%
interop.from_r(ro.r('attr(S, "ledger")'))[["step", "mechanism", "eps", "delta"]]

# %% [markdown]
# ## Summary
#
# * `interop.from_r(robj)`: R data.frame -> pandas (names kept), matrix with dimnames ->
#   DataFrame, named vector -> Series, list -> dict.
# * `interop.to_r(result)` or `with interop.converter().context(): ...`: a dppca result ->
#   the R package's structure, with `ledger` and `summary` attributes.
# * From R itself, the package `dppcapy` gives the same objects through reticulate.
