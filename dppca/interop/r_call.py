"""How R calls Python: one call, with its Python warnings returned as messages.

``dppcapy`` (reticulate) calls every entry point through :func:`call_for_r`, so that a Python
warning becomes an R warning rather than text on the console.
"""
from __future__ import annotations

import warnings


def call_for_r(function, *args, **kwargs):
    """Call ``function`` and return ``(result, warning messages)``.

    The R package ``dppcapy`` calls Python through it, so that Python warnings become R warnings.

    Parameters
    ----------
    function : callable
        The function to call.
    *args, **kwargs
        Passed to ``function``.

    Returns
    -------
    tuple of (object, list of str)
        What ``function`` returned, and every warning message of the call in order.

    Examples
    --------
    >>> import warnings
    >>> from dppca.interop import call_for_r
    >>> call_for_r(warnings.warn, "rounded")
    (None, ['rounded'])
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [str(w.message) for w in caught]


__all__ = ["call_for_r"]
