"""The rank path of :func:`dppca.dp_score`: normal scores on latent-correlation directions.

    X --private marginal quantiles--> z = Phi^{-1}(F_j(x_ij)) in [-z_max, z_max]^p
    X --private Kendall's tau (dp_pc_dir, standardize="rank")--> V
    scores z V[:, axes] --public frame [-sqrt(p) z_max, sqrt(p) z_max]^2--> private histograms

The frame needs no release: every normal score is bounded by construction
(:mod:`dppca.preprocessing.normal_scores`).
"""
from __future__ import annotations

import math

from ._validation import DPPCAValueError
from .directions import RANK, dp_pc_dir
from .estimators.frame import Frame
from .preprocessing.normal_scores import quantile_levels, release_normal_score_map, z_bound
from .privacy import split_budget
from .privacy.composition import GaussianGroup

#: Basic composition of the call's budget: the Gaussian releases (the quantiles and, with
#: g_dppca=True, the directions) as one Gaussian-DP group, and the score histograms (which may
#: be Laplace, "sparse"). A third for the histograms as in the g-DPPCA path's split; the frame's
#: third goes to the quantiles, since the frame here is public.
RANK_BUDGET_SHARES = {True: {"gaussian": 2 / 3, "histograms": 1 / 3},
                      False: {"gaussian": 1 / 2, "histograms": 1 / 2}}
#: Shares of the Gaussian group's mu^2: the range histograms, the quantile histograms and the
#: Kendall's tau release (g_dppca=True); the range release only locates each column, so it
#: gets the smallest share.
RANK_GAUSSIAN_SHARES = {True: {"range": 0.2, "quantiles": 0.3, "directions": 0.5},
                        False: {"range": 0.4, "quantiles": 0.6}}


def rank_frame(p: int, m: int) -> Frame:
    """The public square frame of the rank path's scores: half-width sqrt(p) z_max.

    Parameters
    ----------
    p : int
        Columns.
    m : int
        Quantile levels (z_max = Phi^{-1}(1 - 1/(2m))).

    Returns
    -------
    Frame
        Centred at 0; ``bound`` is the half-width.

    Notes
    -----
    For a unit vector v and z in [-z_max, z_max]^p, ``|z . v| <= ||z||_2 ||v||_2 <= sqrt(p) z_max``
    (Cauchy-Schwarz), so every score lies in the frame; the frame depends on p and m only.

    Examples
    --------
    >>> round(rank_frame(4, 32).half_width, 4)
    4.3076
    """
    half = math.sqrt(p) * z_bound(m)
    return Frame((0.0, 0.0), half, half, half)


def rank_scores(mat, axes, eps, delta, g_dppca, calibration, noise, rng, ledger):
    """Directions, normal scores, frame and the histograms' budget of the rank path.

    Parameters
    ----------
    mat : dppca.preprocessing.Matrix
        The validated data, shape (n, p).
    axes : (int, int)
        1-based PC numbers.
    eps, delta : float
        The budget left for this part of the call (after any partition selection).
    g_dppca : bool
        True: private directions (the rank path's Kendall's tau release); False: the
        NON-PRIVATE latent correlation directions.
    calibration : {"analytic", "classic"}
        Gaussian calibration of the group.
    noise : {"tight"}
        The directions' noise; "r_dppca" has no rank counterpart and is refused.
    rng : numpy.random.Generator
    ledger : dppca.privacy.Ledger
        The call's ledger: the quantile releases, the directions' release and (later) the
        histograms are recorded there.

    Returns
    -------
    (directions, scores, frame, histogram_budget, score_map)
        ``directions`` a PCDirections; ``scores`` (n, 2); ``frame`` :func:`rank_frame`;
        ``histogram_budget`` the (eps, delta) of the histograms; ``score_map`` the released
        :class:`dppca.preprocessing.normal_scores.NormalScoreMap`.

    Raises
    ------
    DPPCAValueError
        ``noise`` other than "tight".

    Warns
    -----
    DPAccuracyWarning
        When the range release located no count of some column (decided from the release).

    Notes
    -----
    Budget: ``RANK_BUDGET_SHARES`` by basic composition; inside the Gaussian part one
    :class:`dppca.privacy.composition.GaussianGroup` with ``RANK_GAUSSIAN_SHARES`` of mu^2 (the
    directions' call gets the (eps, delta) whose Gaussian calibration is its share, and its
    release is re-recorded as that share). The ledger's rows sum to (eps, delta).
    """
    if noise != "tight":
        raise DPPCAValueError("noise='r_dppca' reproduces the R package's g-DPPCA; the rank path "
                              "(standardize='rank') has no R counterpart: use noise='tight'")
    parts = split_budget(eps, delta, RANK_BUDGET_SHARES[g_dppca])
    group = GaussianGroup(*parts["gaussian"], calibration)
    shares = RANK_GAUSSIAN_SHARES[g_dppca]
    quantile_noise = group.share(shares["quantiles"])
    m = quantile_levels(mat.n, mat.p, quantile_noise)
    score_map = release_normal_score_map(mat.values, m, group.share(shares["range"]),
                                         quantile_noise, rng, ledger=ledger)
    if g_dppca:
        directions = dp_pc_dir(mat.to_frame(), max(axes), standardize=RANK, g_dppca=True,
                               eps=group.standalone(shares["directions"])[0],
                               delta=group.standalone(shares["directions"])[1],
                               calibration=calibration, rng=rng)
        group.absorb(directions.ledger.releases, ledger)
    else:
        directions = dp_pc_dir(mat.to_frame(), max(axes), standardize=RANK, g_dppca=False)
    _warn_unlocated(score_map.located, mat.columns)
    vectors = directions.directions.to_numpy()[:, [a - 1 for a in axes]]
    scores = score_map.transform(mat.values) @ vectors
    return directions, scores, rank_frame(mat.p, m), parts["histograms"], score_map


def _warn_unlocated(located, columns) -> None:
    """A DPAccuracyWarning naming the columns the range release did not locate (their normal
    scores carry no information); it reads the release only."""
    if located.all():
        return
    import warnings

    from .privacy.accuracy import DPAccuracyWarning

    missing = [str(c) for c, ok in zip(columns, located) if not ok]
    warnings.warn(f"normal scores: the private range release located {int(located.sum())} of "
                  f"{located.size} columns; {missing} keep no information (their quantiles are "
                  "noise). More eps for the plot or more rows would fix it",
                  DPAccuracyWarning, stacklevel=4)


__all__ = ["RANK_BUDGET_SHARES", "RANK_GAUSSIAN_SHARES", "rank_frame", "rank_scores"]
