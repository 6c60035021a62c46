"""What each path estimates: one sentence per estimand, shared by every result's summary.

A private PCA result estimates the eigenvectors (and, for the scree, a variance along each
of them) of one population matrix; that matrix differs between paths, and equals the
covariance or the correlation matrix only under stated conditions. :data:`ESTIMANDS` says
which matrix and when, once, for the summaries (:mod:`dppca.results`, which own what a summary says), the ledgers and the
docs ("What each path estimates").
"""
from __future__ import annotations

#: Estimand key -> sentence: the matrix whose eigenvectors (or the variance) are estimated,
#: and when that equals covariance or correlation PCA.
ESTIMANDS = {
    "covariance": "eigenvectors of the covariance matrix (covariance PCA itself; of the rows "
                  "clipped to the norm bound where the method clips and a clip binds).",
    "correlation": "eigenvectors of the covariance of the columns divided by their scales; "
                   "correlation PCA when the scales are the columns' SDs (private scales "
                   "estimate them).",
    "kendall": "eigenvectors of the multivariate (spatial-sign) Kendall's tau matrix "
               "E[(x - x')(x - x')^T / |x - x'|^2]; equal to covariance PCA's under elliptical "
               "symmetry (its eigenvalues are not variances), not in general for skewed data.",
    "kendall_standardized": "eigenvectors of the multivariate (spatial-sign) Kendall's tau "
                            "matrix of the columns divided by their scales; equal to "
                            "correlation PCA's under elliptical symmetry with the SDs as "
                            "scales, not in general for skewed data.",
    "latent_correlation": "eigenvectors of the latent Gaussian-copula correlation matrix "
                          "(Han & Liu 2012; sin(pi tau / 2) of the elementwise Kendall's tau); "
                          "equal to correlation PCA's for Gaussian data, and unchanged by any "
                          "increasing transform of any column.",
    "lad": "the least-absolute-deviation (LAD) k-subspace; equal to covariance PCA's top "
           "subspace when the data lie on a k-dimensional subspace, not in general.",
    "clipped": "variances along the directions of pair differences clipped at the released "
               "threshold; equal to covariance PCA's eigenvalues along its eigenvectors when "
               "no clip binds (the summary's bias bound says how far it can be from them).",
    "pmwm": "variances along the directions from winsorized (trimmed) means of pair "
            "differences; equal to the variances when no winsorizing binds.",
    "huber": "Huber M-estimates of the variances along the directions; equal to the "
             "variances when the Huber threshold does not bind (no heavy tails).",
    "scores": "2-D histograms of the data's projections on the directions.",
}

#: Direction methods of :func:`dppca.dp_pc_dir` -> estimand key in raw and standardized units.
DIRECTION_ESTIMANDS = {
    "gdppca": ("kendall", "kendall_standardized"),
    "rank": ("latent_correlation", "latent_correlation"),
    "dp_sggd": ("lad", "lad"),
}


def estimand(key: str) -> str:
    """The estimand sentence of ``key`` (a key of :data:`ESTIMANDS`).

    Parameters
    ----------
    key : str
        An estimand key (e.g. ``"kendall"``, ``"latent_correlation"``, ``"clipped"``).

    Returns
    -------
    str
        One sentence: which matrix's eigenvectors (or which variances) are estimated, and
        when that equals covariance or correlation PCA.

    Raises
    ------
    KeyError
        For a key not in :data:`ESTIMANDS`.

    Examples
    --------
    >>> estimand("latent_correlation").startswith("eigenvectors of the latent Gaussian-copula")
    True
    """
    return ESTIMANDS[key]


def direction_estimand(method: str, standardized: bool) -> str:
    """The estimand key of a direction method of :func:`dppca.dp_pc_dir`.

    Parameters
    ----------
    method : str
        A direction method (``"gdppca"``, ``"rank"``, ``"nonprivate"``, ``"analyze_gauss"``...).
    standardized : bool
        Whether the columns were divided by scales first.

    Returns
    -------
    str
        A key of :data:`ESTIMANDS`: the Kendall, latent-correlation or LAD estimand of those
        methods, else covariance (raw units) or correlation (standardized): the other methods
        perturb the (clipped) second-moment matrix.

    Examples
    --------
    >>> direction_estimand("gdppca", False), direction_estimand("analyze_gauss", True)
    ('kendall', 'correlation')
    """
    raw, scaled = DIRECTION_ESTIMANDS.get(method, ("covariance", "correlation"))
    return scaled if standardized else raw


__all__ = ["DIRECTION_ESTIMANDS", "ESTIMANDS", "direction_estimand", "estimand"]
