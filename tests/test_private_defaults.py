"""Private by default, the user-xi bound, one sentence for the g-DPPCA sensitivity (issue 9)."""
from __future__ import annotations

import numpy as np
import pytest

from dppca.methods.gdppca import gdppca_directions
from dppca.privacy import Ledger


def test_user_xi_below_zero_is_clipped_into_zero_and_the_bound():
    # K_g averages g g^T with ||g|| = |xi| <= xi_bound once xi is clipped into [0, xi_bound], so
    # its top eigenvalue is at most xi_bound^2 = 1. A tiny noise (eps = 1e6) keeps the release
    # within a few sigma of K_g. Unclipped, xi = -10 gives ||g||^2 = 100 and a top eigenvalue
    # near 100 / p (about 33 here): 100x the sensitivity the noise was calibrated for.
    X = np.random.default_rng(0).normal(size=(60, 3))
    fit = gdppca_directions(X, 1, eps=1e6, delta=1e-5, rng=np.random.default_rng(1),
                            calibration="analytic", ledger=Ledger(1e6, 1e-5),
                            xi=lambda s: np.full_like(s, -10.0), xi_bound=1.0)
    assert fit.eigenvalues[0] <= 1.0 + 6 * fit.noise_sd


@pytest.fixture(scope="module")
def small():
    import pandas as pd
    rng = np.random.default_rng(3)
    return pd.DataFrame(rng.normal(size=(200, 3)) * [3.0, 2.0, 1.0], columns=["a", "b", "c"])


def test_private_by_default_and_false_is_flagged_nonprivate(small):
    from dppca import dp_pc_dir, dp_score, dp_score_group, dp_scree

    budget = dict(eps=2.0, delta=1e-5)
    group = np.repeat(["u", "v"], 100)
    defaults = [dp_pc_dir(small, 2, rng=0, **budget), dp_scree(small, 2, rng=0, **budget),
                dp_score(small, method="add", rng=0, **budget),
                dp_score_group(small, group, method="add", rng=0, levels=["u", "v"], **budget)]
    assert all(r.directions_private for r in defaults)
    assert defaults[0].method == "gdppca"
    # dp_pc_dir(X, k) without a budget is R's non-private PCA, flagged as such.
    assert not dp_pc_dir(small, 2).directions_private
    explicit = [dp_pc_dir(small, 2, g_dppca=False, **budget),
                dp_scree(small, 2, g_dppca=False, rng=0, **budget),
                dp_score(small, method="add", g_dppca=False, rng=0, **budget),
                dp_score_group(small, group, method="add", g_dppca=False, rng=0, levels=["u", "v"],
                               **budget)]
    assert not any(r.directions_private for r in explicit)


def _stale_gdppca_claims(text: str) -> list[str]:
    """Sentences that give g-DPPCA a 4/n (or 4 G^2/n) sensitivity without attributing it.

    The paper's and R's 4/n may be quoted (the README's differences-from-R table, the proof
    in gdppca_directions, the tutorial's history), so a sentence naming the paper, R or the
    triangle inequality as the source is allowed; any other "4/n" is a stale claim.
    """
    import re

    sentences = re.split(r"(?<=[.;|])\s+|\n\s*\n", text)
    claim = re.compile(r"\b4\s*(?:\|\|g\|\|_inf\^2\s*|G\^2\s*)?/\s*\(?n\b")
    source = re.compile(r"paper|Kim & Jung's|\bR\b|R package|triangle inequality", re.I)
    return [s for s in sentences if claim.search(s) and not source.search(s)]


def test_gdppca_sensitivity_is_one_constant_and_one_sentence():
    import inspect
    import pathlib
    import pkgutil
    import importlib

    import dppca
    from dppca import dp_pc_dir, dp_score, dp_scree
    from dppca.methods import gdppca

    assert gdppca.GDPPCA_SENSITIVITY_CONSTANT == pytest.approx(2 * np.sqrt(2), rel=1e-15)
    assert "2 sqrt(2) ||g||_inf^2 / n" in gdppca.GDPPCA_SENSITIVITY_SENTENCE
    squash = lambda s: " ".join(s.split())
    for func in (dp_pc_dir, dp_scree, dp_score):
        assert squash(gdppca.GDPPCA_SENSITIVITY_SENTENCE) in squash(func.__doc__), func.__name__
    root = pathlib.Path(dppca.__file__).parent
    texts = {}
    for info in pkgutil.walk_packages([str(root)], "dppca."):
        if info.name.startswith(("dppca.app", "dppca.interop")):
            continue  # optional extras; they state no sensitivities
        module = importlib.import_module(info.name)
        texts[info.name] = inspect.getsource(module)
    repo = root.parent
    for path in [repo / "README.md", *sorted((repo / "vignettes").glob("*.py")),
                 *sorted((repo / "vignettes").glob("*.md"))]:
        texts[str(path.relative_to(repo))] = path.read_text()
    stale = {name: found for name, text in texts.items() if (found := _stale_gdppca_claims(text))}
    assert stale == {}


def test_the_stale_claim_detector_finds_the_old_dp_scree_docstring():
    old = "* Directions (g_dppca=True): g-DPPCA, Frobenius sensitivity 4/n (Kim & Jung 2025, Prop. 2.1)"
    assert _stale_gdppca_claims(old)
    assert not _stale_gdppca_claims("| g-DPPCA sensitivity 4/n (Kim & Jung's triangle inequality) |")
