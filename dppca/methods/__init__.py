"""Registry of PC-direction methods used by :func:`dppca.dp_pc_dir`.

Each entry maps a method name to a function ``f(values, k, *, eps, delta, rng,
calibration, ledger, **options) -> DirectionFit``. ``"nonprivate"`` ignores the
privacy arguments. Other DP-PCA methods of the seed papers live one per file here.
"""
from ._base import DirectionFit, orient, top_eigen
from .gdppca import gdppca_directions, nonprivate_directions

METHODS = {
    "nonprivate": nonprivate_directions,
    "gdppca": gdppca_directions,
}

#: Options each method accepts beyond the common ones (used to reject misplaced options).
METHOD_OPTIONS = {
    "nonprivate": (),
    "gdppca": ("sign", "radius", "xi", "xi_bound"),
}

__all__ = ["DirectionFit", "METHODS", "METHOD_OPTIONS", "orient", "top_eigen"]
