"""Shared fixtures: small datasets with fixed seeds."""
import os

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def gaussian_frame():
    """n=400 rows, p=4 named columns, a clear first PC along (1,1,0,0)/sqrt2."""
    rng = np.random.default_rng(20261121)
    cov = np.diag([1.0, 1.0, 0.5, 0.25])
    cov[0, 1] = cov[1, 0] = 0.9
    X = rng.multivariate_normal(np.zeros(4), cov, size=400)
    return pd.DataFrame(X, columns=["a", "b", "c", "d"])


#: The environment the session started with: rpy2 (tests/test_interop.py) adds R's library
#: folder to LD_LIBRARY_PATH, which breaks Jupyter kernels started later by the vignette tests.
STARTING_ENVIRONMENT = dict(os.environ)


@pytest.fixture
def starting_environment():
    """A copy of the environment the test session started with (for subprocesses)."""
    return dict(STARTING_ENVIRONMENT)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure a test opened (pyplot keeps them until closed)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(autouse=True)
def _restore_library_path():
    """Undo rpy2's LD_LIBRARY_PATH after each test: a child process (a benchmark, a dask worker)
    started with R's library folder first loads the system libpython instead of this Python's
    (multiprocessing then fails: "'_thread.RLock' object has no attribute '_recursion_count'")."""
    yield
    start = STARTING_ENVIRONMENT.get("LD_LIBRARY_PATH")
    if os.environ.get("LD_LIBRARY_PATH") != start:
        if start is None:
            os.environ.pop("LD_LIBRARY_PATH", None)
        else:
            os.environ["LD_LIBRARY_PATH"] = start


@pytest.fixture
def saved_figures(monkeypatch):
    """Figures saved with ``Figure.savefig`` during the test, by file name, so that tests judge
    them by what they draw (lines, images, titles), never by their file size."""
    from pathlib import Path

    from matplotlib.figure import Figure

    saved, original = {}, Figure.savefig

    def recording(fig, path, *args, **kwargs):
        saved[Path(path).name] = fig
        return original(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    return saved
