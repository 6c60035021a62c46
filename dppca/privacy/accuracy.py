"""The accuracy model: the predicted error of each private step, from public numbers only.

Every private step of a call (column scales, tuning quantiles and clips, the trace, scree values,
the centre, the frame, the directions' noise against an eigengap) has a function that predicts its
error from public quantities: n, p, k, eps, delta, the step's budget share and declared bounds.
Because a prediction reads no data, a warning built from it leaks nothing: the same warning is
issued for every pair of neighbouring data sets.

A prediction is a :class:`StepAccuracy`; the predictions of one call are an
:class:`AccuracyReport`, shown before a release (:func:`dppca.plan`) and with it (the "Expected
accuracy" block of every ``summary()``). A step whose prediction exceeds its threshold is
*unreliable*: a :class:`DPAccuracyWarning` says so, and what would fix it.
"""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field

__all__ = ["AccuracyReport", "CLIP_LEVEL", "caller_stacklevel", "CLIP_MULTIPLIER", "CLIP_OVER_LAMBDA", "DPAccuracyWarning",
           "StepAccuracy"]

#: Reference clip of a clipped mean of pair values u: C = CLIP_MULTIPLIER x their CLIP_LEVEL
#: quantile (the clipped method's former self-tuned rule; the scree accuracy model's Gaussian
#: clip and PMWM's trim calibration). For Gaussian scores u ~ lambda chi2_1 (q90 = 2.7055
#: lambda), C = CLIP_OVER_LAMBDA x lambda = 6.49 lambda, clipping bias 1.3%. One definition for
#: the estimators (:mod:`dppca.estimators.scree_accuracy`, :mod:`dppca.estimators.scree_fits`)
#: and the post-release checks (:mod:`dppca.results.scree_checks`), which may not import them.
CLIP_LEVEL, CLIP_MULTIPLIER = 0.9, 2.4
CLIP_OVER_LAMBDA = CLIP_MULTIPLIER * 2.7055


def caller_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` that names the first line outside dppca.

    A warning issued inside nested dppca calls (a public function, its budget decorator, a
    pipeline, an estimator) points at the user's line that called dppca, whatever the depth: the
    number of frames from the function that calls this one to the first frame whose file is not
    in the dppca package (pandas' ``find_stack_level`` does the same).

    Returns
    -------
    int
        The stack level (1: the calling function itself, when it is not in dppca).

    Examples
    --------
    >>> import warnings
    >>> from dppca.privacy.accuracy import caller_stacklevel
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("x", stacklevel=caller_stacklevel())
    >>> "dppca" in caught[0].filename.split("/")[-2:]
    False
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


class DPAccuracyWarning(UserWarning):
    """The accuracy model predicts that a private step is dominated by its noise.

    Issued from public numbers only (n, p, k, eps, delta, shares, declared bounds), so the
    warning is the same for every pair of neighbouring data sets. Filter it with
    ``warnings.simplefilter("ignore", dppca.DPAccuracyWarning)``.

    Examples
    --------
    >>> import warnings
    >>> import dppca
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = dppca.dp_scree(dppca.load_gau().iloc[:150, :4], k=3, eps=1, delta=1e-5, rng=1)
    >>> any(w.category is dppca.DPAccuracyWarning for w in caught)
    True
    """


@dataclass(frozen=True)
class StepAccuracy:
    """The predicted error of one private step, computed from public numbers only.

    Parameters
    ----------
    step : str
        The step, as named on the ledger (e.g. ``"column scales"``, ``"scree values"``).
    quantity : str
        What is predicted, in words (e.g. ``"median |log2(released scale / sample SD)|"``).
    predicted : float
        The predicted error, in ``unit``.
    unit : str
        The unit of ``predicted`` and ``threshold`` (e.g. ``"relative"``, ``"octaves"``,
        ``"sin-theta"``).
    threshold : float
        Above this value the step is unreliable (its noise dominates its signal).
    assumptions : str
        The assumptions of the prediction (e.g. "columns roughly Gaussian").
    fix : str
        What would make the step reliable (more eps, declared bounds, fewer columns, ...).

    Examples
    --------
    >>> s = StepAccuracy("trace", "relative error", 0.02, "relative", 0.5, "bounded rows", "")
    >>> s.reliable
    True
    """

    step: str
    quantity: str
    predicted: float
    unit: str
    threshold: float
    assumptions: str
    fix: str

    def __post_init__(self):  # plain floats (numpy scalars print as np.float64(...))
        object.__setattr__(self, "predicted", float(self.predicted))
        object.__setattr__(self, "threshold", float(self.threshold))

    @property
    def reliable(self) -> bool:
        """Whether the predicted error is at most the threshold (public arithmetic)."""
        return bool(self.predicted <= self.threshold)


@dataclass
class AccuracyReport:
    """The predictions for every private step of one call (public numbers only).

    Parameters
    ----------
    steps : list of StepAccuracy
        One prediction per private step, in the order the call runs them.

    Examples
    --------
    >>> r = AccuracyReport([StepAccuracy("trace", "relative error", 2.0, "relative", 0.5,
    ...                                  "bounded rows", "more eps")])
    >>> [s.step for s in r.unreliable]
    ['trace']
    """

    steps: list[StepAccuracy] = field(default_factory=list)

    @property
    def unreliable(self) -> list[StepAccuracy]:
        """The steps whose predicted error exceeds their threshold."""
        return [s for s in self.steps if not s.reliable]

    def to_frame(self):
        """One row per step: step, quantity, predicted, threshold, unit, reliable, assumptions, fix.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> r = AccuracyReport([StepAccuracy("trace", "relative error", 0.02, "relative", 0.5,
        ...                                  "bounded rows", "more eps")])
        >>> r.to_frame()[["step", "reliable"]].to_dict("records")
        [{'step': 'trace', 'reliable': True}]
        """
        import pandas as pd

        return pd.DataFrame([{"step": s.step, "quantity": s.quantity, "predicted": s.predicted,
                              "threshold": s.threshold, "unit": s.unit, "reliable": s.reliable,
                              "assumptions": s.assumptions, "fix": s.fix} for s in self.steps],
                            columns=["step", "quantity", "predicted", "threshold", "unit",
                                     "reliable", "assumptions", "fix"])

    def table_frame(self):
        """The compact table of summaries: index step, columns predicted, threshold, unit, verdict.

        Examples
        --------
        >>> r = AccuracyReport([StepAccuracy("trace", "relative error", 2.0, "relative", 0.5,
        ...                                  "bounded rows", "more eps")])
        >>> r.table_frame().loc["trace", "verdict"]
        'UNRELIABLE'
        """
        frame = self.to_frame().set_index("step")
        frame["verdict"] = ["ok" if ok else "UNRELIABLE" for ok in frame["reliable"]]
        return frame[["predicted", "threshold", "unit", "verdict"]]

    def notes(self) -> list[str]:
        """One note per step: what is predicted, under which assumption, and the fix if unreliable.

        Examples
        --------
        >>> r = AccuracyReport([StepAccuracy("trace", "relative error", 2.0, "relative", 0.5,
        ...                                  "bounded rows", "more eps")])
        >>> r.notes()[0]
        'Expected accuracy, trace: relative error (assumes bounded rows). UNRELIABLE; fix: more eps.'
        """
        return [f"Expected accuracy, {s.step}: {s.quantity} (assumes {s.assumptions})."
                + ("" if s.reliable else f" UNRELIABLE; fix: {s.fix}.") for s in self.steps]

    def warn(self, basis: str = "public numbers only") -> None:
        """Issue one :class:`DPAccuracyWarning` naming every unreliable step and its fix, at the
        caller's line (the first frame outside dppca, :func:`caller_stacklevel`).

        Public arithmetic only: the same warning for every pair of neighbouring data sets, or,
        for a post-release step (``basis="released values only"``), a function of released values
        (post-processing: only noisy values decide it).

        Examples
        --------
        >>> import warnings
        >>> r = AccuracyReport([StepAccuracy("trace", "relative error", 2.0, "relative", 0.5,
        ...                                  "bounded rows", "more eps")])
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     r.warn()
        >>> caught[0].category.__name__
        'DPAccuracyWarning'
        """
        bad = self.unreliable
        if bad:
            steps = "; ".join(f"{s.step} (predicted {s.predicted:.3g} {s.unit} > {s.threshold:g}; "
                              f"fix: {s.fix})" for s in bad)
            warnings.warn(f"the accuracy model ({basis}) predicts that these steps are "
                          f"dominated by their noise or off their target: {steps}. Their numbers "
                          "are marked unreliable.",
                          DPAccuracyWarning, stacklevel=caller_stacklevel())
