"""How synthetic points are drawn from a private histogram (R: ``sampling_control``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import DPPCATypeError, DPPCAValueError, float_arg, int_arg, options_arg

#: Base point of a synthetic observation: uniform inside its bin, or the bin's centre.
SAMPLING_METHODS = ("uniform", "center")
#: Default jitter standard deviation, in units of the median bin width.
DEFAULT_BANDWIDTH = {"uniform": 0.25, "center": 0.5}
#: Default points per synthetic sample: n up to this many (a readable scatter), then this many.
DEFAULT_SAMPLE_CAP = 20_000


@dataclass(frozen=True)
class SamplingControl:
    """How synthetic points are drawn from a private histogram (R ``sampling_control``).

    Parameters
    ----------
    method : str or sequence of {"uniform", "center"}
        Base point of each synthetic observation: uniform inside the drawn bin, or its centre.
        Several give one sample each. Unknown names are errors (R drops them silently, and
        gives "center" for NULL; here None means the default "uniform").
    sample_size : int, optional
        Points per sample, >= 1; None means min(n, ``DEFAULT_SAMPLE_CAP``) (n is public). R
        draws n points: at n = 10^7 a scatter of opaque points is a solid block that shows
        nothing, so the default stops at 20,000; give ``sample_size=n`` for R's behaviour.
    bandwidth_scale : float or dict of str to float, optional
        Standard deviation of the Gaussian jitter in units of the median bin width, >= 0.
        One number applies to every method; a dict needs every requested method. Default
        {"uniform": 0.25, "center": 0.5}.

    Raises
    ------
    DPPCAValueError, DPPCATypeError
        Unknown or repeated methods, a sample size that is not a positive integer, a
        negative or non-finite bandwidth, a dict missing a method or naming an unknown one.

    See Also
    --------
    dp_score_plot : Uses it (``sampling_control=``).

    Notes
    -----
    Sampling is post-processing of a released histogram: it costs no budget as long as
    these settings do not depend on the data.

    Examples
    --------
    >>> from dppca import sampling_control
    >>> sampling_control(sample_size=100).sample_size
    100
    """

    method: tuple = ("uniform",)
    sample_size: int | None = None
    bandwidth_scale: dict | float | None = None

    def __post_init__(self):
        methods = options_arg("uniform" if self.method is None else self.method, "method",
                              SAMPLING_METHODS)
        size = None if self.sample_size is None else int_arg(self.sample_size, "sample_size", lower=1)
        object.__setattr__(self, "method", methods)
        object.__setattr__(self, "sample_size", size)
        object.__setattr__(self, "bandwidth_scale", _bandwidths(self.bandwidth_scale, methods))


def _bandwidths(value, methods) -> dict:
    if value is None:
        return {m: DEFAULT_BANDWIDTH[m] for m in methods}
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(SAMPLING_METHODS))
        missing = [m for m in methods if m not in value]
        if unknown or missing:
            raise DPPCAValueError(f"`bandwidth_scale` must give a value for each method {methods} "
                                  f"and no others; unknown {unknown}, missing {missing}")
        return {m: float_arg(value[m], f"bandwidth_scale[{m!r}]", nonnegative=True) for m in methods}
    if isinstance(value, (str, bytes)) or not np.isscalar(value):
        raise DPPCATypeError(f"`bandwidth_scale` must be a number or a dict method -> number; got {value!r}")
    return {m: float_arg(value, "bandwidth_scale", nonnegative=True) for m in methods}


sampling_control = SamplingControl

__all__ = ["DEFAULT_BANDWIDTH", "DEFAULT_SAMPLE_CAP", "SAMPLING_METHODS", "SamplingControl", "sampling_control"]
