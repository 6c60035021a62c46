"""Synthetic points drawn from a released histogram (post-processing: no budget).

R's ``sampling_control`` settings (:class:`dppca.controls.SamplingControl`) choose the base point
in a drawn bin (uniform inside it, or its centre) and the Gaussian jitter.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

def sample_histogram(hist: pd.DataFrame, size: int, method: str, bandwidth: float, rng) -> pd.DataFrame:
    """``size`` synthetic 2-D points from one histogram (R §8.3), post-processing.

    Bins are drawn with probability ``prob``; the base point is uniform in the bin
    (``"uniform"``) or its centre (``"center"``); Gaussian jitter with standard deviation
    ``bandwidth`` x median bin width (per axis) is added. Draw order: bins, then uniform x
    and y, then jitter x and y.

    Returns
    -------
    DataFrame with columns pc_x, pc_y (``size`` rows; 0 rows, with a warning, if the
    histogram has no mass).
    """
    weights = np.where(np.isfinite(hist["prob"]) & (hist["prob"] > 0), hist["prob"], 0.0)
    if weights.sum() <= 0 or size == 0:
        if size:
            warnings.warn("the histogram has no positive mass: no synthetic points were drawn",
                          UserWarning, stacklevel=2)
        return pd.DataFrame({"pc_x": np.empty(0), "pc_y": np.empty(0)})
    bins = rng.choice(weights.size, size=size, p=weights / weights.sum())
    lo = hist[["xmin", "ymin"]].to_numpy()[bins]
    hi = hist[["xmax", "ymax"]].to_numpy()[bins]
    base = (lo + hi) / 2 if method == "center" else \
        np.column_stack([rng.uniform(lo[:, j], hi[:, j]) for j in range(2)])
    widths = np.median(hist[["xmax", "ymax"]].to_numpy() - hist[["xmin", "ymin"]].to_numpy(), axis=0)
    jitter = np.column_stack([rng.normal(0.0, bandwidth * widths[j], size=size) for j in range(2)])
    points = base + jitter
    return pd.DataFrame({"pc_x": points[:, 0], "pc_y": points[:, 1]})


def allocate_sample_sizes(weights, total: int) -> np.ndarray:
    """Split ``total`` points over groups in proportion to ``weights`` (largest remainder).

    Ties go to the earlier group. Negative weights count as 0; all-zero weights give all 0.
    Use private weights (the released group totals), never the exact group sizes.
    """
    weights = np.maximum(np.asarray(weights, dtype=float), 0.0)
    if weights.sum() <= 0:
        return np.zeros(weights.size, dtype=int)
    raw = total * weights / weights.sum()
    out = np.floor(raw).astype(int)
    order = np.argsort(-(raw - out), kind="stable")
    out[order[:total - out.sum()]] += 1
    return out


def sample_released(hist: pd.DataFrame, size: int, method: str, bandwidth: float, rng, *,
                    groups=None, weights=None) -> pd.DataFrame:
    """``size`` synthetic points from a released (grouped) histogram, post-processing.

    Ungrouped (``groups`` None): :func:`sample_histogram`. Grouped: ``hist`` has a ``group``
    column; the points are split over ``groups`` by :func:`allocate_sample_sizes` of
    ``weights`` (the private group totals) and drawn group by group; ``group`` is a
    Categorical with categories ``groups``. :class:`dppca.results.ScoreResult` calls it.
    """
    if groups is None:
        return sample_histogram(hist, size, method, bandwidth, rng)
    sizes = allocate_sample_sizes(weights, size)
    pieces = [sample_histogram(hist[hist["group"] == g], int(k), method, bandwidth, rng).assign(group=g)
              for g, k in zip(groups, sizes)]
    out = pd.concat(pieces, ignore_index=True)
    out["group"] = pd.Categorical(out["group"], categories=groups)
    return out

__all__ = ["allocate_sample_sizes", "sample_histogram", "sample_released"]
