"""Generate the "Privacy contract" tables (docs/_generated/privacy_table.md) at build time.

Table 1 lists every release the privacy audit checks (``dppca.audit.registry.REGISTRY``:
name, claimed sensitivity, norm). Table 2 lists the ledger steps that real calls of the
public functions record (on a small simulated data set, default options), with their
mechanism, norm and sensitivity. Both come from the code, so the page cannot drift.
"""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import dp_pc_dir, dp_score, dp_score_group, dp_scree
from dppca.audit.registry import REGISTRY

EPS, DELTA = 1.0, 1e-5


def _calls():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.standard_normal((2000, 4)), columns=["a", "b", "c", "d"])
    group = pd.Series(rng.choice(["x", "y"], size=2000))
    budget = dict(eps=EPS, delta=DELTA, rng=1)
    yield "dp_pc_dir(X, k=2, standardize=True)", dp_pc_dir(X, k=2, standardize=True, **budget)
    yield "dp_scree(X, k=2)", dp_scree(X, k=2, **budget)
    with warnings.catch_warnings():  # a small-n histogram may keep no mass: not a docs matter
        warnings.simplefilter("ignore", UserWarning)
        yield "dp_score(X)", dp_score(X, **budget)
        yield "dp_score_group(X, group)", dp_score_group(X, group, **budget)


def _markdown(frame):
    header = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def registry_frame():
    """One row per audited release: name, claimed sensitivity, norm."""
    return pd.DataFrame([(entry.name, entry.claim, entry.norm) for entry in REGISTRY.values()],
                        columns=["release", "sensitivity (claimed, audited)", "norm"])


def ledger_frame():
    """One row per ledger step recorded by a default call of each public function."""
    rows = []
    for call, result in _calls():
        ledgers = result.ledger if isinstance(result.ledger, dict) else {"": result.ledger}
        for method, ledger in ledgers.items():
            rows.extend((f"`{call}` {method}".strip(), release.step,
                         release.mechanism, release.norm, f"{release.sensitivity:.4g}",
                         f"{release.eps:.3g}", f"{release.delta:.3g}")
                        for release in ledger.releases)
    return pd.DataFrame(rows, columns=["call (n = 2000, p = 4, eps = 1, delta = 1e-5)", "ledger step",
                                       "mechanism", "norm", "sensitivity", "eps", "delta"])


def write(path):
    """Write both tables as MyST markdown to ``path`` (only if the text changed)."""
    path = Path(path)
    path.parent.mkdir(exist_ok=True)
    text = "\n\n".join(["## Audited releases", _markdown(registry_frame()),
                        "## Ledger steps of the public functions", _markdown(ledger_frame())])
    if not path.exists() or path.read_text() != text + "\n":
        path.write_text(text + "\n")
