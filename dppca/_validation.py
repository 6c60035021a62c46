"""Argument checks shared by every public function.

One small function per kind of argument (after ``statsmodels.tools.validation``);
each raises a :class:`DPPCAValueError` / :class:`DPPCATypeError` whose message names
the argument, the rule, and what was given.
"""
from __future__ import annotations

import math
import numbers
import re
import sys

import lazy_loader as _lazy

# Loaded on first use, so that `dppca --help` (which checks its arguments with these
# functions) starts without numpy; any analysis module loads it at its own import.
np = _lazy.load("numpy")


class DPPCAValueError(ValueError):
    """An argument has the right type but breaks a rule (range, shape, option).

    See Also
    --------
    DPPCATypeError : An argument of the wrong type.

    Examples
    --------
    >>> from dppca import DPPCAValueError, dp_pc_dir, load_gau
    >>> try:
    ...     dp_pc_dir(load_gau(), k=2, eps=-1, delta=1e-5)
    ... except DPPCAValueError as error:
    ...     print("eps" in str(error))
    True
    """


class DPPCATypeError(TypeError):
    """An argument has the wrong type.

    See Also
    --------
    DPPCAValueError : An argument of the right type that breaks a rule.

    Examples
    --------
    >>> from dppca import DPPCATypeError, dp_pc_dir, load_gau
    >>> try:
    ...     dp_pc_dir(load_gau(), k="two")
    ... except DPPCATypeError as error:
    ...     print("k" in str(error))
    True
    """


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bool_arg(value, name: str) -> bool:
    """Return ``value`` if it is a single bool (numpy bools accepted)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise DPPCATypeError(f"`{name}` must be True or False; got {_shown(value)}")


def int_arg(value, name: str, lower: int | None = None, upper: int | None = None) -> int:
    """Return ``value`` as int if it is an integer (or integral float) in [lower, upper]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DPPCATypeError(f"`{name}` must be an integer{_range(lower, upper)}; got {_shown(value)}")
    if not math.isfinite(float(value)) or float(value) != int(value):
        raise DPPCAValueError(f"`{name}` must be an integer{_range(lower, upper)}; got {_shown(value)}")
    value = int(value)
    if (lower is not None and value < lower) or (upper is not None and value > upper):
        raise DPPCAValueError(f"`{name}` must be an integer{_range(lower, upper)}; got {value}")
    return value


def _range(lower, upper) -> str:
    if lower is not None and upper is not None:
        return f" in [{lower}, {upper}]"
    if lower is not None:
        return f" >= {lower}"
    if upper is not None:
        return f" <= {upper}"
    return ""


def float_arg(value, name: str, *, positive: bool = False, nonnegative: bool = False,
              open_unit: bool = False, closed_unit: bool = False) -> float:
    """Return ``value`` as a finite float obeying the requested rule."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DPPCATypeError(f"`{name}` must be a finite number; got {_shown(value)}")
    value = float(value)
    rules = [
        (not math.isfinite(value), "a finite number"),
        (positive and not value > 0, "a finite number > 0"),
        (nonnegative and not value >= 0, "a finite number >= 0"),
        (open_unit and not 0 < value < 1, "a number in the open interval (0, 1)"),
        (closed_unit and not 0 <= value <= 1, "a number in [0, 1]"),
    ]
    for broken, rule in rules:
        if broken:
            raise DPPCAValueError(f"`{name}` must be {rule}; got {_shown(value)}")
    return value


#: Smallest eps of a private release: 2^-52, the double's machine epsilon. Below it 1 + eps is
#: within one rounding of 1, so e^eps, on which every calibration's privacy-loss bound rests, is
#: computed as 1 (to 2^-53) and the noise no longer follows eps: the calibration answers for
#: eps = 0 (at eps = 1e-300 the analytic search overflows; below 1e-100 it takes seconds).
MIN_EPS = 2.0 ** -52
#: Smallest delta of a private release: the smallest normal double, 2.2e-308. A smaller delta is
#: subnormal (fewer than 53 significant bits), 1.25 / delta overflows to infinity (the classic
#: calibration's sigma is infinite) and the analytic calibration's search does not terminate.
MIN_DELTA = sys.float_info.min


def eps_arg(eps) -> float:
    """Privacy parameter epsilon: a finite number >= 2^-52 (:data:`MIN_EPS`)."""
    if eps is None:
        raise DPPCAValueError("`eps` is required for a private release (a finite number > 0); got None")
    eps = float_arg(eps, "eps", positive=True)
    if eps < MIN_EPS:
        raise DPPCAValueError(f"`eps` must be at least 2^-52 = {MIN_EPS:.3g}: below it e^eps rounds "
                              f"to 1 and no calibration can follow eps; got {eps!r}")
    return eps


def delta_arg(delta) -> float:
    """Privacy parameter delta: a number in [2.2e-308, 1) (:data:`MIN_DELTA`, the smallest normal double)."""
    if delta is None:
        raise DPPCAValueError("`delta` is required for a private release (a number in (0, 1)); got None")
    delta = float_arg(delta, "delta", open_unit=True)
    if delta < MIN_DELTA:
        raise DPPCAValueError(f"`delta` must be at least {MIN_DELTA:.4g} (the smallest normal "
                              "double): a smaller delta loses precision, 1/delta overflows and "
                              f"the calibration cannot be computed; got {delta!r}")
    return delta


def option_arg(value, name: str, options) -> str:
    """Return ``value`` if it is one of the strings in ``options``."""
    options = tuple(options)
    if not isinstance(value, str):
        raise DPPCATypeError(f"`{name}` must be one of {options}; got {_shown(value)}")
    if value not in options:
        raise DPPCAValueError(f"`{name}` must be one of {options}; got {_shown(value)}")
    return value


def options_arg(values, name: str, options) -> tuple[str, ...]:
    """One option string or a non-empty sequence of distinct ones; unknown names are errors."""
    if isinstance(values, str):
        values = (values,)
    try:
        values = tuple(values)
    except TypeError:
        raise DPPCATypeError(f"`{name}` must be a string or a sequence of strings from "
                             f"{tuple(options)}; got {_shown(values)}") from None
    if not values:
        raise DPPCAValueError(f"`{name}` must name at least one of {tuple(options)}; got an empty sequence")
    chosen = tuple(option_arg(v, name, options) for v in values)
    if len(set(chosen)) != len(chosen):
        raise DPPCAValueError(f"`{name}` must not repeat a name; got {chosen}")
    return chosen


def rng_arg(rng) -> np.random.Generator:
    """Normalise ``rng`` (None, an int seed or a Generator) with ``numpy.random.default_rng`` (SPEC 7)."""
    if isinstance(rng, (bool, np.bool_)):
        raise DPPCATypeError(f"`rng` must be None, an integer seed or a numpy.random.Generator; got {rng!r}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as err:
        raise DPPCATypeError("`rng` must be None, a non-negative integer seed or a "
                             f"numpy.random.Generator; got {_shown(rng)}") from err


def seed_of(rng):
    """What a summary shows as the seed: the int the caller gave, else a description."""
    if rng is None:
        return "none (fresh entropy)"
    if isinstance(rng, numbers.Integral):
        return int(rng)
    return "user Generator"


def callable_arg(value, name: str):
    """Return ``value`` if it is callable (e.g. a user's scale function ``xi``)."""
    if not callable(value):
        raise DPPCATypeError(f"`{name}` must be a callable; got {type(value).__name__}")
    return value


def control_arg(value, kind, name: str):
    """A control object of dataclass ``kind`` from None (its defaults), an instance or a dict.

    The one validation path of every ``*_control`` argument (scree methods, plots, sampling).

    Parameters
    ----------
    value : None, kind or dict
        A dict gives settings by name (R's ``list(...)`` of a control).
    kind : type
        A frozen dataclass that validates its own fields.
    name : str
        The argument's name, for messages.

    Returns
    -------
    kind
        The validated control: ``kind()`` for None, ``value`` itself for an instance,
        ``kind(**value)`` for a dict.

    Raises
    ------
    DPPCATypeError
        ``value`` is of another type, or the dict names settings ``kind`` does not have.
    DPPCAValueError
        A setting breaks its rule (raised by ``kind``).

    Examples
    --------
    >>> from dppca.controls import ClippedControl
    >>> control_arg({"C_clip": 2.0}, ClippedControl, "control").C_clip
    2.0
    """
    if value is None:
        return kind()
    if isinstance(value, kind):
        return value
    if isinstance(value, dict):
        import dataclasses  # here: it imports inspect, which `dppca --help` does not need

        known = [f.name for f in dataclasses.fields(kind)]
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise DPPCATypeError(f"`{name}` has unknown settings {unknown}; known: {known}")
        return kind(**value)
    constructor = re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()
    raise DPPCATypeError(f"`{name}` must be None, a {constructor}() or a dict of its settings; "
                         f"got {type(value).__name__}")


def as_columns(values) -> np.ndarray:
    """``values`` as a float array of shape (n, k): a 1-D array becomes one column."""
    values = np.asarray(values, float)
    return values[:, None] if values.ndim == 1 else values


def axes_arg(axes, p) -> tuple:
    """Two distinct 1-based component numbers in [1, p] (``dp_score``'s ``axes``)."""
    rule = f"`axes` must be two distinct PC numbers in [1, {p}]"
    if isinstance(axes, (str, bytes)) or np.ndim(axes) != 1 or len(axes) != 2:
        raise DPPCAValueError(f"{rule}; got {axes!r}")
    chosen = tuple(int_arg(a, "axes", 1, p) for a in axes)
    if chosen[0] == chosen[1]:
        raise DPPCAValueError(f"{rule}; got a repeated axis {chosen}")
    return chosen


def bins_arg(bins):
    """None, or bins per axis as a pair of positive integers (one integer applies to both)."""
    if bins is None:
        return None
    if np.ndim(bins) == 0 and not isinstance(bins, (str, bytes)):
        bins = (bins, bins)
    if isinstance(bins, (str, bytes)) or np.ndim(bins) != 1 or len(bins) != 2:
        raise DPPCAValueError(f"`bins` must be a positive integer or two of them; got {bins!r}")
    return tuple(int_arg(b, "bins", lower=1) for b in bins)

__all__ = ["DPPCATypeError", "callable_arg", "DPPCAValueError", "as_columns", "axes_arg", "bins_arg", "bool_arg",
           "control_arg", "delta_arg", "eps_arg", "float_arg", "int_arg", "option_arg",
           "options_arg", "rng_arg", "seed_of"]
