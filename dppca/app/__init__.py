"""The interactive app (Shiny for Python): private scree and score plots with a session budget.

Mirrors the R package's ``dppca_app()`` (reference r-dppca-score.md §16) and adds what R's
app lacks: each dataset of a browser session has one total (eps, delta), every run draws from
it (scree runs compose as Gaussian DP, the rest by basic composition; see
:mod:`dppca.app.session`), a run that would exceed it is refused, and results already released
are shown again for free. Start it with ``dppca app`` or :func:`run_app`; R users call ``dppcapy::dppca_app()``.

Needs the ``app`` extra (``pip install "dppca[app]"``).
"""
from __future__ import annotations

from .factory import (INSTALL, LOOPBACK, MAX_UPLOAD_BYTES, AppExtraMissing, check_host,
                      check_registered, create_app, require_app_extra, run_app)

__all__ = ["AppExtraMissing", "INSTALL", "LOOPBACK", "MAX_UPLOAD_BYTES", "check_host",
           "check_registered", "create_app", "require_app_extra", "run_app", "start_app"]


def start_app(X=None, group=None, **kwargs):
    """:func:`run_app` in a child process; returns a handle with ``url`` and ``stop()``.

    See :func:`dppca.app.background.start_app` (same arguments as :func:`run_app`, plus
    ``python``; ``port=0`` picks a free port).
    """
    from .background import start_app as start

    return start(X, group, **kwargs)
