"""Loadings heat map of a :class:`~dppca.results.PCDirections`."""
from __future__ import annotations

import numpy as np


def loadings_heatmap(result, ax=None):
    """Heat map of the p x k loadings, diverging colours centred at 0.

    Parameters
    ----------
    result : PCDirections
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    loadings = result.directions
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(5.5, 2.5 + 0.9 * loadings.shape[1]),
                                        1.8 + 0.32 * loadings.shape[0]), layout="constrained")
    else:
        fig = ax.figure
    limit = max(float(np.abs(loadings.to_numpy()).max()), 1e-12)
    image = ax.imshow(loadings.to_numpy(), cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    ax.set_xticks(range(loadings.shape[1]), loadings.columns)
    ax.set_yticks(range(loadings.shape[0]), loadings.index)
    ax.set_xlabel("principal component")
    ax.set_ylabel("variable" if result.scale_source == "none" else "variable (standardized)")
    fig.colorbar(image, ax=ax, label="loading (unit-length direction)")
    ax.set_title(_title(result))
    return fig


def _title(result) -> str:
    scaling = "" if result.scale_source == "none" else f"; scaling: {result.scale_source}"
    if not result.private:
        return f"Loadings (NON-PRIVATE{scaling})"
    return f"Private loadings, {result.method}\n(eps={result.eps:g}, delta={result.delta:g}{scaling})"

__all__ = ["loadings_heatmap"]
