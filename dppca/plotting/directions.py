"""Loadings heat map of a :class:`~dppca.results.PCDirections`."""
from __future__ import annotations

import numpy as np

from .labels import budget_label, fallback_fonts, wrapped


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
    with fallback_fonts(list(loadings.index) + list(loadings.columns)):
        return _draw(result, loadings, ax, plt)


def _draw(result, loadings, ax, plt):
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
    # Wrapped to the axes' width (the colour bar takes the rest): never cut off at the edge.
    width = fig.get_figwidth() * ax.get_position().width
    ax.set_title(wrapped(_title(result), width, plt.rcParams["axes.titlesize"]))
    return fig


def _title(result) -> str:
    """Title lines: what is plotted, then the budget as the summary states it and the scaling."""
    scaling = "" if result.scale_source == "none" else f"scaling: {result.scale_source}"
    if not result.private:
        return f"Loadings (NON-PRIVATE)\n{scaling}".strip()
    return f"Private loadings, {result.method}\n{budget_label(result)}\n{scaling}".strip()

__all__ = ["loadings_heatmap"]
