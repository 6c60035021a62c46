"""Generate the "Privacy contract" tables (docs/_generated/privacy_table.md) at build time.

Table 1 lists every release the privacy audit checks (``dppca.audit.registry.REGISTRY``, then
the add/remove releases of ``dppca.audit.add_remove.ADD_REMOVE_REGISTRY``: name, claimed
sensitivity, norm) with the measured results of the last full audit
(``benchmarks/results/audit_privacy_full.txt``, written by ``benchmarks/audit_privacy.py``:
max observed sensitivity ratio, eps lower bound, status; "not in the last full audit" for a
release added since). Table 2 is that run's half-noise canary table. Table 3 lists the ledger
steps that real calls of the public functions record (on a small simulated data set, default
options), with their mechanism, norm and sensitivity. The names and claims come from the code,
the measurements from the results file, so the page cannot drift from either.
"""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dppca import dp_pc_dir, dp_score, dp_score_group, dp_scree
from dppca.audit.add_remove import ADD_REMOVE_REGISTRY
from dppca.audit.registry import REGISTRY

EPS, DELTA = 1.0, 1e-5
#: The full audit's table (benchmarks/audit_privacy.py, full mode).
AUDIT_RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "audit_privacy_full.txt"


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


def audit_tables(path=AUDIT_RESULTS) -> list:
    """The markdown tables of the results file, each a list of rows (lists of cells)."""
    tables, current = [], None
    text = Path(path).read_text() if Path(path).exists() else ""
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if len(cells) > 1 and current is None:
            current = [cells]
            tables.append(current)
        elif len(cells) > 1:
            current.append(cells)
        else:
            current = None
    return [[row for row in table if set("".join(row)) != {"-"}] for table in tables]


def registry_frame(path=AUDIT_RESULTS):
    """One row per audited release: name, claimed sensitivity, norm, last full audit's results."""
    tables = audit_tables(path)
    measured = {}
    if tables:
        header, *rows = tables[0]
        measured = {row[0]: dict(zip(header, row)) for row in rows}
    missing = {"max ratio": "-", "eps_lb": "-", "runs": "-", "status": "not in the last full audit"}
    return pd.DataFrame([(entry.name, entry.claim, entry.norm,
                          *(measured.get(entry.name, missing)[c] for c in ("max ratio", "eps_lb", "runs", "status")))
                         for entry in [*REGISTRY.values(), *ADD_REMOVE_REGISTRY.values()]],
                        columns=["release", "sensitivity (claimed, audited)", "norm", "max ratio",
                                 "eps_lb (claimed 1)", "releases per side", "status"])


def canary_frame(path=AUDIT_RESULTS):
    """The last full audit's half-noise canary table (empty when absent)."""
    tables = [t for t in audit_tables(path) if t and t[0][0] == "canary family"]
    if not tables:
        return pd.DataFrame(columns=["canary family"])
    header, *rows = tables[0]
    return pd.DataFrame(rows, columns=header)


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
    text = "\n\n".join(["## Audited releases (last full audit)", _markdown(registry_frame()),
                        "## Half-noise canaries (last full audit)", _markdown(canary_frame()),
                        "## Ledger steps of the public functions", _markdown(ledger_frame())])
    if not path.exists() or path.read_text() != text + "\n":
        path.write_text(text + "\n")
