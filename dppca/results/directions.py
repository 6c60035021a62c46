"""``PCDirections``: the result of :func:`dppca.dp_pc_dir`."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .estimands import direction_estimand
from ..privacy.neighbouring import relation_label
from .base import NONPRIVATE, DPResult, frame_table, release_count, scaling_label


def pc_names(k: int) -> list[str]:
    """Column labels PC1..PCk, as in the R package."""
    return [f"PC{j + 1}" for j in range(k)]


class PCDirections(DPResult):
    """Private (or non-private) principal component directions.

    Made by :func:`dppca.dp_pc_dir` (users do not construct it).

    Parameters
    ----------
    fit : dppca.methods.DirectionFit
        The method's output: vectors, eigenvalues, mechanism, sensitivity, noise sd, notes.
    columns : sequence of str, length p
        Variable names.
    method : str
        The method's registered name, or ``"nonprivate"``.
    ledger : Ledger or None
        The call's releases.
    n_obs : int
        Number of rows n (public).
    eps, delta : float or None
        The call's budget (None when non-private).
    calibration : str
        The Gaussian calibration used.
    seed : int or str
        The seed the call was given.
    scale : array_like, shape (p,), optional
        Column scales used when standardizing.
    scale_source : str
        Where the scales came from (see the attribute).
    nonprivate_directions : pandas.DataFrame, optional
        NON-PRIVATE reference directions.
    options : dict, optional
        Method options.

    Attributes
    ----------
    directions : pandas.DataFrame, shape (p, k)
        Orthonormal columns PC1..PCk, index = variable names. Sign convention: the entry
        of largest absolute value in each column is positive.
    eigenvalues : pandas.Series, shape (k,)
        Eigenvalues of the released matrix (the noisy Kendall's tau matrix for g-DPPCA,
        the sample covariance for non-private PCA). For g-DPPCA they are on the Kendall
        scale (they sum to at most 1 for the spherical sign), not variances: use
        ``dp_scree`` for private variances.
    method : str
        ``"nonprivate"``, ``"gdppca"``, or another registered method.
    private : bool
        Whether the directions are a private release.
    ledger : Ledger or None
        Every private release of the call (None for non-private calls).
    n_obs, n_features, k : int
        Rows, columns and components.
    eps, delta : float or None
        The call's budget.
    calibration : str
        ``"analytic"`` or ``"classic"``.
    sensitivity, noise_sd : float
        Of the direction release (nan when non-private).
    scale : pandas.Series or None
        Column scales used when ``standardize=True`` (private, public or sample).
    scale_source : str
        ``"none"``, ``"public"``, ``"private"`` or ``"sample (NON-PRIVATE)"``; the summary
        header adds the share of eps the private scales took.
    directions_private : bool
        True when the directions are a private release (the same as ``private`` here; scree
        and score results carry it too, for the directions they used).
    nonprivate_directions : pandas.DataFrame or None
        NON-PRIVATE reference, only when the call asked for it (``nonprivate=True``).
    options : dict
        Method options (sign, radius, ...).
    seed : int or str
        The seed the call was given.

    See Also
    --------
    dp_pc_dir : Makes this result.
    dp_scree : Private scree values along such directions.
    dp_score : Private score histograms along such directions.

    Notes
    -----
    ``np.asarray(result)`` gives the p x k matrix, so ``X @ result`` projects data.

    Examples
    --------
    >>> from dppca import dp_pc_dir, load_gau
    >>> gau = load_gau()
    >>> result = dp_pc_dir(gau, k=2, eps=1, delta=1e-5, rng=1)
    >>> result.directions.shape, list(result.directions.columns)
    ((20, 2), ['PC1', 'PC2'])
    >>> (gau.to_numpy() @ result).shape
    (5000, 2)
    """

    @property
    def _title(self) -> str:
        return "Differentially Private PC Directions" if self.private else f"PC Directions ({NONPRIVATE})"

    def __init__(self, fit, columns, *, method, ledger, n_obs, eps, delta, calibration, seed,
                 scale=None, scale_source="none", nonprivate_directions=None, options=None):
        k = fit.vectors.shape[1]
        self.directions = pd.DataFrame(fit.vectors, index=list(columns), columns=pc_names(k))
        self.eigenvalues = pd.Series(fit.eigenvalues, index=pc_names(k), name="eigenvalue")
        self.method = method
        self.mechanism = fit.mechanism
        self.private = method != "nonprivate"
        self.directions_private = self.private
        self.ledger = ledger
        self.n_obs, self.n_features, self.k = int(n_obs), len(columns), k
        self.eps, self.delta, self.calibration, self.seed = eps, delta, calibration, seed
        self.sensitivity, self.noise_sd = fit.sensitivity, fit.noise_sd
        self.scale = None if scale is None else pd.Series(scale, index=list(columns), name="scale")
        self.scale_source = scale_source
        self.nonprivate_directions = nonprivate_directions
        self.options = dict(options or {})
        self._method_notes = list(fit.notes)
        self.target = fit.target

    def __array__(self, dtype=None, copy=None):
        return self.directions.to_numpy(dtype=dtype)

    def to_frame(self) -> pd.DataFrame:
        """The directions (p x k DataFrame)."""
        return self.directions.copy()

    def to_dict(self) -> dict:
        """Plain payload for JSON and the R bridges."""
        return {"directions": self.directions.to_numpy().tolist(),
                "variables": list(self.directions.index), "components": list(self.directions.columns),
                "eigenvalues": self.eigenvalues.tolist(), "method": self.method,
                "ledger": None if self.ledger is None else self.ledger.to_dict(),
                "n_obs": self.n_obs, "n_features": self.n_features}

    def plot(self, ax=None):
        """Heat map of the loadings (matplotlib); returns the Figure (the result is unchanged)."""
        from ..plotting.directions import loadings_heatmap

        return loadings_heatmap(self, ax=ax)

    def __repr__(self) -> str:
        budget = "" if not self.private else f", eps={self.eps:g}, delta={self.delta:g}"
        return (f"PCDirections(method={self.method!r}, n_obs={self.n_obs}, "
                f"n_features={self.n_features}, k={self.k}{budget})")

    def _estimand_keys(self):
        return [("Directions", direction_estimand(self.method, self.scale_source != "none"))]

    def _header(self):
        left = [("Method", self.method), ("Mechanism", self.mechanism),
                ("Epsilon", self.eps), ("Delta", self.delta),
                ("Calibration", self.calibration if self.private else None),
                ("Sensitivity", self.sensitivity), ("Noise sd", self.noise_sd)]
        right = [("Neighbouring", relation_label(self.ledger) if self.private else None),
                 ("No. Observations", self.n_obs), ("No. Variables", self.n_features),
                 ("No. Components", self.k), ("Scaling", scaling_label(self.scale_source, self.ledger)),
                 ("Seed", self.seed), ("Target", self.target or None)]
        return left, right

    def _tables(self, alpha=0.05):
        title = "Loadings" if self.private else f"Loadings ({NONPRIVATE})"
        tables = [frame_table(self.directions, title=title)]
        if self.nonprivate_directions is not None:
            tables.append(frame_table(self.nonprivate_directions, title=f"{NONPRIVATE} reference loadings"))
        return tables

    def _notes(self):
        if not self.private:
            return ["NON-PRIVATE: these directions are computed from the data without noise."] \
                + self._method_notes
        notes = [f"The directions are post-processing of the releases on the ledger; total "
                 f"eps={self.ledger.spent_eps:.4g}, delta={self.ledger.spent_delta:.4g} "
                 f"({release_count(self.ledger)})."] + self._method_notes
        said = any(note.startswith("Eigenvalues") for note in self._method_notes)
        if np.isfinite(self.eigenvalues.to_numpy()).all() and not said:
            notes.append("Eigenvalues are those of the released (noisy) matrix; they are not variances.")
        notes.append("Another release on the same data costs its own budget (basic composition).")
        if self.accuracy is None:
            notes.append(f"Expected accuracy: no accuracy model for this method ({self.method}); "
                         "dppca.plan and the g-DPPCA summaries predict g-DPPCA's.")
        return notes

__all__ = ["PCDirections", "pc_names"]
