"""Benchmark: what the budget store adds to a private call, on SQLite and PostgreSQL.

Run ``python benchmarks/bench_budget.py`` (about a minute on 2 cores) or ``--quick``.

One row per store: the median wall time of one charge (the debit transaction, with the dataset's
lock, the filter and the log row, plus the outcome row written after the call) over 1,000 calls
on one dataset (its log grows from 0 to 1,000 rows during the run), and the same as a share of
the median ``dp_pc_dir(gau, k=2, eps=1, delta=1e-5)`` (g-DPPCA on the bundled gau data) timed in
the same run. Then ``dp_pc_dir(..., budget=...)`` end to end on SQLite against the plain call.
PostgreSQL runs in a throwaway cluster (Debian's ``postgresql``; the row is skipped without it).
"""

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from dppca import budget, dp_pc_dir, load_gau  # noqa: E402
from dppca.privacy.store import BudgetStore  # noqa: E402


def main(argv=None):
    args = parse_args(argv)
    calls, reps = (200, 5) if args.quick else (args.calls, args.reps)
    X = load_gau()
    call = _median_seconds(lambda i: dp_pc_dir(X, k=2, eps=1, delta=1e-5, rng=i), reps)
    print(f"dp_pc_dir on gau (n={len(X)}, p={X.shape[1]}): median {call * 1e3:.1f} ms over {reps} "
          f"calls\n")
    print(f"{'store':<12}{'calls':>7}{'median ms / charge':>20}{'max ms':>9}{'share of the call':>19}")
    with tempfile.TemporaryDirectory() as folder:
        stores = {"SQLite": lambda: contextlib.nullcontext(f"sqlite:///{folder}/budget.sqlite3"),
                  "PostgreSQL": _postgres}
        for name, opened in stores.items():
            with opened() as url:
                if url is None:
                    print(f"{name:<12}  skipped: no PostgreSQL binaries or psycopg")
                    continue
                times = _charge_times(BudgetStore(url), calls)
                median = statistics.median(times)
                print(f"{name:<12}{calls:>7}{median * 1e3:>20.2f}{max(times) * 1e3:>9.1f}"
                      f"{median / call:>18.1%}")
        store = BudgetStore(f"sqlite:///{folder}/budget.sqlite3")
        store.register("end-to-end", eps=1e9, delta=0.5)
        handle = budget("end-to-end", budget_store=store)
        charged = _median_seconds(lambda i: dp_pc_dir(X, k=2, eps=1, delta=1e-5, rng=i,
                                                      budget=handle), reps)
        plain = _median_seconds(lambda i: dp_pc_dir(X, k=2, eps=1, delta=1e-5, rng=i), reps)
    print(f"\ndp_pc_dir with budget= (SQLite) {charged * 1e3:.1f} ms, without {plain * 1e3:.1f} ms: "
          f"ratio {charged / plain:.3f} (median of {reps} each, same run)")
    return 0


def _charge_times(store, calls):
    """Seconds of each of ``calls`` charges (debit + outcome row) on a fresh dataset."""
    store.register("bench", eps=1e9, delta=0.5)
    ledger = {"eps": 1.0, "delta": 1e-5, "releases": [{"step": "directions", "noise_scale": 0.1}]}
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        charge = store.debit("bench", 1.0, 1e-9, function="bench", settings={"k": 2})
        store.record_outcome(charge.charge_id, "ok", ledger)
        times.append(time.perf_counter() - start)
    return times


@contextlib.contextmanager
def _postgres():
    try:
        import psycopg  # noqa: F401
        from budget.pg_cluster import postgres_bin, throwaway_cluster
    except ImportError:
        yield None
        return
    if postgres_bin() is None:
        yield None
        return
    with throwaway_cluster(port=5498) as url:
        yield url


def _median_seconds(run, reps):
    run(0)  # warm-up
    times = []
    for i in range(reps):
        start = time.perf_counter()
        run(i + 1)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 charges, 5 calls")
    parser.add_argument("--calls", type=int, default=1000, help="charges per store")
    parser.add_argument("--reps", type=int, default=11, help="timed dp_pc_dir calls")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
