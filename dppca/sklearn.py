"""``DPPCA``: a scikit-learn transformer around :func:`dppca.dp_pc_dir` with a private centre.

Needs the optional extra ``dppca[sklearn]`` (scikit-learn >= 1.6). ``import dppca`` does not
import scikit-learn; ``dppca.DPPCA`` loads this module on first use.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from ._validation import (DPPCATypeError, DPPCAValueError, bool_arg, delta_arg, eps_arg, float_arg,
                          int_arg, seed_of)
from .backends.dask import is_dask_input
from .directions import RANK, dp_pc_dir
from .preprocessing import as_matrix
from .preprocessing.schema import declared_input, priced
from .estimators.centre import MIN_N_EPS, dp_centre
from .preprocessing.matrix import check_frame_columns
from .preprocessing.missing import MissingPolicy, resolve_missing
from .preprocessing.missing_entry import absorb_medians, fill_missing, policy_applied
from .privacy import Ledger, split_budget
from .privacy.composition import GaussianGroup
from .privacy.neighbouring import ADD_REMOVE, LABELS, add_remove_unsupported, neighbouring_arg
from .privacy.spending import debit, records_outcome
from .scree import DIRECTION_SHARE, SCALE_SHARE, dp_scree
from .scree_rank import rank_scree_release
from .stats.elementwise_kendall_blocks_design import resolve_rank_design

__all__ = ["DPPCA", "CENTER_SHARE", "DPCentreWarning"]

#: Default share of (eps, delta) spent on the private centre ``mean_`` (basic composition).
CENTER_SHARE = 0.2

class DPCentreWarning(UserWarning):
    """``DPPCA.fit`` releases no private centre: n x eps x center_share is below 200.

    Shown once per configuration (eps and ``center_share``, named in the message with the
    number of rows they need) in a Python session: ``cross_val_score`` or a grid search warns
    once per configuration, not once per fit. It depends on public facts only (n, eps,
    ``center_share``), never on the data's values.

    Filter it by its class, e.g. ``warnings.filterwarnings("ignore",
    category=DPCentreWarning)``.

    Examples
    --------
    >>> import warnings
    >>> from dppca.sklearn import DPCentreWarning
    >>> warnings.filterwarnings("ignore", category=DPCentreWarning)
    >>> issubclass(DPCentreWarning, UserWarning)
    True
    >>> warnings.resetwarnings()
    """


class DPPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Differentially private PCA as a scikit-learn transformer.

    ``fit`` releases, on one :class:`dppca.privacy.Ledger` totalling ``(eps, delta)``: a private
    centre ``mean_``, the private directions ``components_`` (:func:`dppca.dp_pc_dir`, with the
    private column scales ``scale_`` when ``standardize=True``) and, when
    ``explained_variance=True``, private scree values (:func:`dppca.dp_scree`). ``transform`` is
    post-processing: ``((X - mean_) / scale_) @ components_.T``. With ``standardize="rank"`` the
    components are the rank path's (the eigenvectors of the latent Gaussian-copula correlation
    matrix, Han & Liu 2012, from a private elementwise Kendall's tau matrix: method ``"rank"``
    of :func:`dppca.dp_pc_dir`); no scales are released (``scale_`` is None).

    Parameters
    ----------
    n_components : int, default 2
        Number of directions k, 1 <= k <= n_features.
    eps : float, default 1.0
        Total privacy budget of one ``fit`` (> 0).
    delta : float, default 1e-5
        Total privacy budget of one ``fit``, in (0, 1).
    method : str, default "gdppca"
        A private method of :func:`dppca.dp_pc_dir` (``"gdppca"``, ``"analyze_gauss"``,
        ``"k_dp_pca"``, ``"k_dp_ojas"``, ``"cai_xia_zha"``, ``"dp_sggd"``, ``"noisy_power"``).
    standardize : bool or "rank", default False
        True: divide the centred columns by private scales (``scale_share`` of the directions'
        budget). ``"rank"``: the scale-free rank path (``method`` must be ``"rank"`` or the
        default ``"gdppca"``, which then means ``"rank"``); its directions estimate the latent
        Gaussian-copula correlation's eigenvectors, which equal correlation PCA's for Gaussian
        data; ``transform`` projects the centred data on them.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        Source of the privacy noise. None (default): fresh OS entropy at every ``fit`` (two fits
        differ, as a private release should); an int: reproducible fits.
    center : bool or array_like of shape (n_features,), default True
        True: a private centre ``mean_`` on ``center_share`` of the budget. False: no centring
        (``mean_`` is 0, nothing spent). An array: a centre the caller declares public (not
        computed from the private X; nothing spent).
    center_share : float in (0, 1), default 0.2
        Share of (eps, delta) spent on the private centre when ``center=True`` (basic
        composition); the rest goes to :func:`dppca.dp_pc_dir` (and :func:`dppca.dp_scree`).
        When n x eps x center_share < 200 (``dppca.estimators.centre.MIN_N_EPS``) no centre is
        released (``mean_`` is 0, with a warning) and the whole budget goes to the directions.
    explained_variance : bool, default False
        Also release private scree values (``explained_variance_``, ``explained_variance_ratio_``)
        with :func:`dppca.dp_scree`; g-DPPCA or the rank path only. On the rank path the values
        and the directions come from one release of the Kendall's tau matrix (the latent
        correlation's eigenvalues and eigenvectors), so ``components_`` are
        ``scree_.directions`` and nothing is spent twice.
    calibration : {"analytic", "classic"}
        Gaussian noise calibration (see :func:`dppca.dp_pc_dir`).
    noise : {"tight", "r_dppca"}
        g-DPPCA's noise (see :func:`dppca.dp_pc_dir`).
    scale_share : float in (0, 1), default 0.35
        Share of the directions' budget spent on private scales when ``standardize=True``.
    design : {"auto", "complete", "incomplete"}
        The pair design of g-DPPCA's or the rank path's Kendall's tau (see
        :func:`dppca.dp_pc_dir`).
    pairs_per_row : int, optional
        Pairs per row of the incomplete design.
    method_options : dict, optional
        Further options of ``method`` passed to :func:`dppca.dp_pc_dir` (e.g. ``norm_bound``).
    bounds : dict, DataFrame, str or Schema, optional
        Declared public bounds per feature (a codebook, see
        :func:`dppca.preprocessing.schema.read_schema`): the data are clipped to them before the
        centre, the directions and (``explained_variance=True``) the scree values, whose trace
        the declared box caps; no budget ("public (declared)" on the ledger, once).
    scale : array_like, dict, Series, DataFrame, str or Schema, optional
        Declared public scales for ``standardize=True`` (all features, or some by name: the
        others get private scales); no budget.
    budget : dppca.privacy.spending.Budget or str, optional
        A registered dataset's privacy budget (:func:`dppca.budget`): each ``fit`` debits its
        whole (eps, delta) there before any private computation.
    missing : {"auto", "median", "drop"}, float or dict
        What a NaN cell means (a public policy, :mod:`dppca.preprocessing.missing`; +-inf are
        extreme values), resolved with the neighbouring relation as :func:`dppca.dp_scree`
        resolves it. "auto" (default) is "median" under replace-one neighbours: private column
        medians from a tenth of eps and delta fill the NaN cells (``fill_``; ``transform`` fills
        with them too); under ``neighbouring="add_remove"`` it is "drop" (incomplete rows are
        removed; n is private there). A number or ``{column: value}`` declares public fill
        values; "drop" needs add/remove neighbours ("pairwise" is refused: the centre and
        ``transform`` need every cell).
    neighbouring : {"replace", "add_remove"}
        The neighbouring relation (see :func:`dppca.dp_pc_dir`). ``"add_remove"`` releases n
        privately first; it needs ``center=False`` or a public centre and
        ``explained_variance=False`` (the private centre and scree values are replace-one only).

    Attributes
    ----------
    components_ : ndarray, shape (n_components, n_features)
        Private unit directions, in standardized units when ``standardize=True`` (latent
        correlation directions when ``standardize="rank"``).
    mean_ : ndarray, shape (n_features,)
        Private centre, in data units.
    scale_ : ndarray of shape (n_features,) or None
        Private column scales (``standardize=True``), else None.
    explained_variance_, explained_variance_ratio_ : ndarray, shape (n_components,)
        Private scree values (variances along the components, data units squared) and their
        share of the private total variance; only with ``explained_variance=True`` (otherwise
        reading them raises AttributeError).
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (``n_features_in_``,)
        Only when ``X`` had string column names.
    ledger_ : dppca.privacy.Ledger
        Every release of the fit; ``ledger_.spent_eps``/``spent_delta`` total at most (eps, delta).
    result_ : dppca.PCDirections
        The directions' result (``summary()``, ``plot()``).
    scree_ : dppca.ScreeResult
        Only with ``explained_variance=True``.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        From ``fit``, naming the parameter: n_components outside [1, n_features], eps <= 0,
        delta outside (0, 1), a share outside (0, 1), an unknown or non-private method, options
        of another method, ``explained_variance=True`` with a method other than g-DPPCA. Both
        subclass ValueError / TypeError, as scikit-learn expects.
    sklearn.exceptions.NotFittedError
        From ``transform``/``inverse_transform`` before ``fit``.

    Warns
    -----
    DPCentreWarning
        From ``fit`` with ``center=True`` when n x eps x center_share < 200: no centre is
        released (public facts only, see ``center_share``). Once per configuration (see
        :class:`DPCentreWarning`); filter it by its class.

    See Also
    --------
    dppca.dp_pc_dir : The private directions this estimator fits.
    dppca.dp_scree : Private eigenvalues (scree) to choose the number of components.
    sklearn.decomposition.PCA : The non-private estimator whose interface this mirrors.

    Notes
    -----
    Privacy (replace-one neighbours, n public). The fit is (eps, delta)-DP by basic composition
    of two parts, split explicitly (with ``center`` False or public, the directions get all):

    * Centre, ``center_share`` (eps, delta): :func:`dppca.estimators.centre.dp_centre`, two
      steps each of a sparse-vector radius search on the distances to the previous centre (pure
      DP, no range needed) and a Gaussian mean of the rows clipped to that radius around it
      (L2 sensitivity 2R/n with a rounding factor); proof in its Notes.
    * Directions, the rest: :func:`dppca.dp_pc_dir` with ``method`` (sensitivities and proofs in
      its Notes; private scales when ``standardize=True``). With ``explained_variance=True`` the
      rest is the budget of :func:`dppca.dp_scree`, which gives the directions
      ``DIRECTION_SHARE`` of its Gaussian-DP group and spends the remainder on the trace and the
      scree values (its Notes). On the rank path the rest is one Gaussian release of the
      elementwise Kendall's tau matrix (:func:`dppca.scree_rank.rank_scree_release`), whose
      post-processing gives both the directions and the scree values.

    ``transform``, ``inverse_transform`` and the feature names are post-processing. Refitting
    spends a new budget: each ``fit`` call is a separate (eps, delta) release.

    Accuracy of the private centre (no public range is needed). Largest absolute error over 6
    coordinates (3-factor Gaussian data, column sd 1 to 2.5, located at 10), median and 90th
    percentile over 20 seeds, delta = 1e-5 (``benchmarks/bench_centre.py``; the release before
    it, with quantiles on a 2^-48..2^48 grid, had 90th percentiles of 5e3, 2e12, 2e12 and 6e11
    in the first four rows and 2 to 3 times the new ones in the last three):

    =====  ===  ============  ======  =====
    n      eps  center_share  median  90%
    =====  ===  ============  ======  =====
    500    4    0.2           0.47    0.70
    2000   0.5  0.2           1.2     1.8
    2000   1    0.1           1.3     2.1
    2000   1    0.2           0.40    0.58
    2000   4    0.2           0.070   0.10
    10000  1    0.2           0.049   0.071
    10000  4    0.2           0.012   0.018
    =====  ===  ============  ======  =====

    Below n x eps x center_share of about 200 the radius searches stop early and the centre
    shrinks towards 0 (n = 2000, eps = 0.5, share 0.1: median error 10), and a rare search that overshoots gives a
    large error (500 seeds at n = 500, eps = 0.5, share 0.1: median 10, largest 2.4e4). So
    ``fit`` then releases no centre: ``mean_`` is 0, as with ``center=False`` (the scores are
    shifted by the constant ``mean @ components_.T``, which the directions do not depend on), the
    directions get the whole budget, and a warning (from the public n, eps and share) suggests
    a public centre (``center=``). The centre's share costs the directions 4% to 30% in
    sin-theta (the same benchmark).

    References
    ----------
    Kim, M. and Jung, S. (2025). Robust and differentially private PCA for non-Gaussian data.
    arXiv:2507.15232. Biswas, Dong, Kamath and Ullman (2020), CoinPress, and Durfee (2023),
    unbounded quantiles (the private centre).

    Examples
    --------
    >>> from dppca import DPPCA, load_gau
    >>> X = load_gau()
    >>> pca = DPPCA(n_components=2, eps=1.0, delta=1e-5, random_state=0).set_output(transform="pandas")
    >>> Z = pca.fit_transform(X)
    >>> list(Z.columns)
    ['dppca0', 'dppca1']
    >>> pca.components_.shape
    (2, 20)
    >>> round(pca.ledger_.spent_eps, 9), pca.ledger_.spent_delta <= 1e-5 * (1 + 1e-9)
    (1.0, True)
    """

    def __init__(self, n_components=2, eps=1.0, delta=1e-5, method="gdppca", standardize=False,
                 random_state=None, *, center=True, center_share=CENTER_SHARE, explained_variance=False,
                 calibration="analytic", noise="tight", scale_share=SCALE_SHARE, design="auto",
                 pairs_per_row=None, method_options=None, bounds=None, scale=None, budget=None,
                 missing="auto", neighbouring="replace"):
        self.n_components = n_components
        self.eps = eps
        self.delta = delta
        self.method = method
        self.standardize = standardize
        self.random_state = random_state
        self.center = center
        self.center_share = center_share
        self.explained_variance = explained_variance
        self.calibration = calibration
        self.noise = noise
        self.scale_share = scale_share
        self.design = design
        self.pairs_per_row = pairs_per_row
        self.method_options = method_options
        self.bounds = bounds
        self.scale = scale
        self.budget = budget
        self.neighbouring = neighbouring
        self.missing = missing

    def __sklearn_tags__(self):
        """NaN cells are missing values (``missing=``), +-inf extreme values: both accepted."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @records_outcome
    def fit(self, X, y=None):
        """Release the private centre, directions (and scree values) of ``X``.

        Parameters
        ----------
        X : array_like, pandas.DataFrame, dask array or dask DataFrame, shape (n_samples, n_features)
            Numeric data, n_samples >= 2 (>= 4 with ``explained_variance=True``). A dask
            collection is computed into memory first (the estimator holds its data, as
            scikit-learn's checks do), then follows the same ``missing=`` policy as in-memory
            data; for data beyond memory call :func:`dppca.dp_pc_dir` on it.
        y : None
            Ignored.

        Returns
        -------
        DPPCA
            self, fitted.
        """
        if is_dask_input(X) and hasattr(X, "compute"):
            X = X.compute()  # a pandas DataFrame or an ndarray: the in-memory path below
        # add/remove: n is private, so no row count is checked before its release (dp_pc_dir
        # refuses too few rows from the released count only)
        min_rows = 0 if neighbouring_arg(self.neighbouring) == ADD_REMOVE else 2
        if isinstance(X, pd.DataFrame):
            check_frame_columns(X, "X", min_rows)  # duplicate and text columns, or "no rows"
        rng = _generator(self.random_state)
        # the relation decides what "auto" means and whether "drop" is allowed, as in dp_pc_dir
        policy = resolve_missing(self.missing, entry="DPPCA",
                                 neighbouring=neighbouring_arg(self.neighbouring))
        # 1-D, sparse and other non-tables go on as they are, to scikit-learn's own errors
        filled = fill_missing(X if _table(X) else None, policy, eps=self.eps,
                              delta=self.delta, rng=rng, budget=self.budget, entry="DPPCA.fit")
        if isinstance(filled.X, pd.DataFrame):
            X = filled.X if isinstance(X, pd.DataFrame) else filled.X.to_numpy()
        values = validate_data(self, X, dtype=np.float64, ensure_min_samples=min_rows,
                               ensure_all_finite=False)  # +-inf: clamped by as_matrix
        k, eps, delta, share = self._checked_params(values.shape[1])
        if filled.medians is not None:
            eps, delta = filled.eps, filled.delta
        # the one path of every entry point for declared metadata: bounds clip the data (the
        # centre's too), a bad codebook fails before any budget is debited. A frame keeps its
        # column names (non-string ones too); a bare array's are V1, V2, ... as in dp_pc_dir.
        names = X.columns if isinstance(X, pd.DataFrame) else None
        source = values if names is None else pd.DataFrame(values, columns=names)
        given = declared_input(as_matrix(source, min_rows=min_rows), self.bounds, self.scale)
        debit(None if filled.charged else self.budget, "DPPCA.fit", eps, delta, n_components=k,
              method=self.method)
        share = _affordable_share(values.shape[0], eps, share)
        self.ledger_ = Ledger(eps, delta)
        self.ledger_.neighbouring = LABELS[neighbouring_arg(self.neighbouring)]
        given.record(self.ledger_)
        parts = split_budget(eps, delta, {"centre": share, "directions": 1 - share})
        values = given.matrix.values
        frame = pd.DataFrame(values, columns=given.matrix.columns)
        self.mean_ = self._centre(values, parts["centre"], rng)
        with policy_applied():  # dp_pc_dir sees the filled data and applies nothing again
            self.result_ = self._directions(frame, k, *parts["directions"], rng)
        absorb_medians([self.ledger_], filled.medians, policy)
        self.fill_ = filled.fill
        self.components_ = self.result_.directions.to_numpy().T.copy()
        self.scale_ = None if self.result_.scale is None else self.result_.scale.to_numpy()
        self.n_components_ = k
        return self

    def transform(self, X):
        """Project ``X`` on the private components: ``((X - mean_) / scale_) @ components_.T``.

        Parameters
        ----------
        X : array_like or pandas.DataFrame, shape (n_samples, ``n_features_in_``)

        Returns
        -------
        ndarray, shape (n_samples, n_components)
            Scores (a DataFrame with columns dppca0.. after ``set_output(transform="pandas")``).
        """
        check_is_fitted(self)
        if self.fill_ and _table(X):  # the fit's released or declared fill values
            filled = fill_missing(X, MissingPolicy("value", values=self.fill_), eps=None,
                                  delta=None, rng=None).X
            X = filled if isinstance(X, pd.DataFrame) else np.asarray(filled)
        values = validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite=False)
        return self._standardized(values - self.mean_) @ self.components_.T

    def inverse_transform(self, X):
        """Map scores back to data space: ``(Z @ components_) * scale_ + mean_``.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_components)
            Scores.

        Returns
        -------
        ndarray, shape (n_samples, ``n_features_in_``)
        """
        check_is_fitted(self)
        back = _scores(X, self.n_components_) @ self.components_
        return (back if self.scale_ is None else back * self.scale_) + self.mean_

    @property
    def explained_variance_(self) -> np.ndarray:
        """Private scree values, shape (n_components,) (AttributeError unless asked for)."""
        return self._scree_column("scree")

    @property
    def explained_variance_ratio_(self) -> np.ndarray:
        """Private scree values over the private trace, shape (n_components,)."""
        return self._scree_column("pve")

    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    # ------------------------------------------------------------------ helpers

    def _checked_params(self, p):
        if self.method == "nonprivate":
            raise DPPCAValueError("`method` must be a private method of dp_pc_dir; 'nonprivate' "
                                  "releases the data without noise (use sklearn.decomposition.PCA)")
        if bool_arg(self.explained_variance, "explained_variance") and \
                self.method not in ("gdppca", RANK):
            raise DPPCAValueError("`explained_variance`=True needs method='gdppca' (dp_scree "
                                  f"composes Gaussian releases only); got method={self.method!r}")
        if self._rank():
            if self.method not in ("gdppca", RANK):
                raise DPPCAValueError(f"standardize={RANK!r} is the rank method: `method` must be "
                                      f"{RANK!r} (or the default 'gdppca'); got {self.method!r}")
            _check_rank_options(self.noise, self.scale, self.method_options)
        elif isinstance(self.standardize, str):
            raise DPPCAValueError(f"`standardize` must be False, True or {RANK!r}; got "
                                  f"{self.standardize!r}")
        else:
            bool_arg(self.standardize, "standardize")
        if isinstance(self.n_components, (int, np.integer)) and not 1 <= self.n_components <= p:
            raise DPPCAValueError(f"`n_components` must be in [1, n_features]; got "
                                  f"n_components={self.n_components} with n_features={p}")
        k = int_arg(self.n_components, "n_components", 1, p)
        share = float_arg(self.center_share, "center_share", open_unit=True)
        private_centre = isinstance(self.center, (bool, np.bool_)) and self.center
        if neighbouring_arg(self.neighbouring) == ADD_REMOVE and private_centre:
            add_remove_unsupported(ADD_REMOVE, "DPPCA's private centre (use center=False or a "
                                   "public centre)")
        if neighbouring_arg(self.neighbouring) == ADD_REMOVE and self.explained_variance:
            add_remove_unsupported(ADD_REMOVE, "DPPCA(explained_variance=True)")
        return k, eps_arg(self.eps), delta_arg(self.delta), share if private_centre else 0.0

    def _centre(self, values, budget, rng) -> np.ndarray:
        """The private centre on ``budget``, zeros (center=False), or the public centre."""
        p = values.shape[1]
        if isinstance(self.center, (bool, np.bool_)):
            if not (self.center and budget[0] > 0):
                return np.zeros(p)
            return dp_centre(values, *budget, rng, calibration=self.calibration, ledger=self.ledger_)
        centre = np.asarray(self.center, dtype=float) if _numeric(self.center) else None
        if centre is None or centre.shape != (p,) or not np.all(np.isfinite(centre)):
            raise DPPCAValueError(f"`center` must be True, False or a finite public centre of "
                                  f"shape (n_features,) = ({p},); got {self.center!r}")
        return centre.copy()

    def _directions(self, frame, k, eps, delta, rng):
        """dp_pc_dir on (eps, delta), or dp_scree on it (directions included) when asked."""
        method = RANK if self._rank() else self.method
        options = dict(method=method, scale_share=self.scale_share, bounds=self.bounds,
                       scale=self.scale, calibration=self.calibration, noise=self.noise, design=self.design,
                       pairs_per_row=self.pairs_per_row, neighbouring=self.neighbouring,
                       **(self.method_options or {}))
        if not self.explained_variance:
            result = dp_pc_dir(frame, k, standardize=self.standardize, eps=eps, delta=delta,
                               rng=rng, **options)
            self._spent(result.ledger)
            return result
        if self._rank():
            return self._rank_directions_and_values(frame, k, eps, delta, rng)
        calibration = "classic" if self.noise == "r_dppca" else self.calibration
        own = GaussianGroup(eps, delta, calibration).standalone(DIRECTION_SHARE)
        result = dp_pc_dir(frame, k, standardize=self.standardize, eps=own[0], delta=own[1],
                           rng=rng, **options)
        self.scree_ = dp_scree(frame, k, eps=eps, delta=delta, standardize=self.standardize,
                               calibration=self.calibration, noise=self.noise, rng=rng,
                               directions=result, scale_share=self.scale_share,
                               bounds=self.bounds, scale=self.scale)
        self._spent(self.scree_.ledger[self._scree_method()])
        return result

    def _rank(self) -> bool:
        """Whether ``standardize`` selects the rank path (the string "rank")."""
        return isinstance(self.standardize, str) and self.standardize == RANK

    def _rank_directions_and_values(self, frame, k, eps, delta, rng):
        """The rank path with ``explained_variance``: ONE release of the tau matrix on the whole
        (eps, delta); the directions ``result_`` and the values ``scree_`` are both
        post-processing of it (so ``components_`` are ``scree_.directions``)."""
        mat = as_matrix(frame, min_rows=4)
        design = resolve_rank_design(self.design, self.pairs_per_row, mat.n, mat.p, False, rng)
        ledger = Ledger(eps, delta)
        self.scree_, result = rank_scree_release(mat, k, eps=eps, delta=delta, rng=rng,
                                                 calibration=self.calibration, ledger=ledger,
                                                 design=design, seed=seed_of(rng))
        self._spent(ledger)
        return result

    def _spent(self, ledger) -> None:
        """The priced releases of a sub-call on ``ledger_`` (its declared rows are there once)."""
        for release in priced(ledger.releases):
            self.ledger_.record(**asdict(release))

    def _standardized(self, centred):
        return centred if self.scale_ is None else centred / self.scale_

    def _scree_column(self, what) -> np.ndarray:
        check_is_fitted(self)
        if not hasattr(self, "scree_"):
            raise AttributeError(f"{type(self).__name__} has no private scree values; fit with "
                                 "explained_variance=True to release them")
        return getattr(self.scree_, what)[self._scree_method()].to_numpy()

    def _scree_method(self) -> str:
        """The scree method whose values are ``explained_variance_``: "clipped" (g-DPPCA), or
        the rank path's one method (the latent correlation's eigenvalues)."""
        return next(iter(self.scree_.ledger)) if self._rank() else "clipped"


def _table(X) -> bool:
    """A 2-D DataFrame, ndarray or nested list (what ``missing=`` fills); other input goes on
    to scikit-learn's own checks and errors."""
    if isinstance(X, (pd.DataFrame, np.ndarray)):
        return X.ndim == 2
    return isinstance(X, (list, tuple)) and np.ndim(X) == 2


def _generator(random_state) -> np.random.Generator:
    """A numpy Generator: fresh entropy for None, seeded for an int or a RandomState."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max) \
        if isinstance(random_state, np.random.RandomState) else random_state
    return np.random.default_rng(seed)


#: The messages of DPCentreWarning already shown in this session (one per configuration).
_SHOWN: set = set()


def _affordable_share(n, eps, share) -> float:
    """``share``, or 0 with a :class:`DPCentreWarning` when n eps share < MIN_N_EPS (public
    facts only). The message names the configuration (eps, center_share and the n it needs),
    not n itself, and is shown once per session: scikit-learn runs each fit of
    ``cross_val_score`` under fresh warning filters, so Python's own once-only registry
    would show it at every fit."""
    if share > 0 and n * eps * share < MIN_N_EPS:
        message = (f"DPPCA(eps={eps:g}, center_share={share:g}): n x eps x center_share is "
                   f"below {MIN_N_EPS:g} for n < {MIN_N_EPS / (eps * share):.0f} rows, so no "
                   "private centre is released (it would be unreliable at this budget): "
                   "mean_ = 0, as with center=False, and its share goes to the directions; "
                   "give more budget or declare a public centre (center=...)")
        if message not in _SHOWN:
            _SHOWN.add(message)
            warnings.warn(message, DPCentreWarning, stacklevel=3)
        return 0.0
    return share


def _check_rank_options(noise, scale, method_options) -> None:
    """The rank path's refusals of dp_pc_dir, made before any budget is debited."""
    if noise != "tight":
        raise DPPCAValueError(f"noise={noise!r} reproduces the R package's g-DPPCA; the rank "
                              "path has no R counterpart (use noise='tight')")
    if scale is not None:
        raise DPPCAValueError("the rank path (standardize='rank') is scale-free: it takes no "
                              "`scale=` (nor a codebook's scales)")
    if method_options:
        raise DPPCATypeError(f"options {sorted(method_options)} are not options of the rank "
                             "path (it takes `design` and `pairs_per_row` only)")


def _numeric(value) -> bool:
    try:
        np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def _scores(X, k) -> np.ndarray:
    scores = np.asarray(X, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] != k or not np.all(np.isfinite(scores)):
        raise DPPCAValueError(f"`X` must be a finite score matrix with n_components={k} columns; "
                              f"got shape {scores.shape}")
    return scores
