"""Benchmark: what the rank path's block design costs in accuracy, against the complete statistic.

Run ``python benchmarks/bench_rank_design.py`` (n = 200,000, p = 10, eps 1 and 4, 5 seeds) or
``--quick`` (n = 50,000, 3 seeds). The data: log-normal margins over two latent Gaussian
factors (latent correlation eigenvalues about 2.2 and 2.0, the rest 0.7-0.75), one fixed seed.
For each eps and design (``"complete"``; ``"auto"``, whose pairs per row come from the public n
and p, :func:`dppca.stats.elementwise_kendall_blocks_design.rank_pairs_per_row_rule`; and
r = 15 and 3 pairs per row) it runs ``dp_scree(X, 2, standardize="rank")`` (one Kendall's tau
release; the directions are the same release's) and prints the medians over the seeds of: the
sin-theta of its directions to the NON-PRIVATE complete-statistic latent directions, the
post-release predicted sin-theta (the parametric bootstrap, which counts the design's extra
sampling sd, :func:`dppca.stats.elementwise_kendall_blocks_design.block_design_sd`), their
ratio, and the scree intervals' half-width (:class:`dppca.results.scree_rank.RankBound`, all
values at once, 95%). ``noise sd`` is the release's per-entry noise sd, ``design sd`` the bound
sqrt(2 / (n r)) on the design's extra per-entry sampling sd. A report, not a test.

``--out FILE`` also writes the table under the provenance header (benchmarks/provenance.py).
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dppca import dp_scree  # noqa: E402
from dppca.methods.latent_correlation import nonprivate_latent_directions  # noqa: E402
from dppca.metrics import sin_theta  # noqa: E402
from dppca.stats.elementwise_kendall_blocks_design import block_design_sd  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import provenance  # noqa: E402

#: Designs compared: name -> dp_scree arguments.
DESIGNS = {"complete": {"design": "complete"}, "auto": {"design": "incomplete"},
           "r = 15": {"pairs_per_row": 15}, "r = 3": {"pairs_per_row": 3}}


def two_factor(n: int, p: int, seed: int = 0) -> np.ndarray:
    """Log-normal margins over two latent factors (loadings^2 0.3 and 0.25, half the columns each)."""
    rng = np.random.default_rng(seed)
    load = np.zeros((p, 2))
    load[: p // 2, 0], load[p // 2:, 1] = math.sqrt(0.3), math.sqrt(0.25)
    x = rng.standard_normal((n, 2)) @ load.T
    return np.exp(x + np.sqrt(1 - (load ** 2).sum(1)) * rng.standard_normal((n, p)))


def row(x, reference, eps, arguments, seeds) -> dict:
    """Medians over the seeds of one (eps, design) cell."""
    sines, predicted, widths, facts = [], [], [], {}
    for seed in range(seeds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # accuracy warnings: the table reports the numbers
            result = dp_scree(x, 2, standardize="rank", eps=eps, delta=1e-5, rng=seed,
                              missing=0.0, **arguments)
        sines.append(sin_theta(result.directions.to_numpy(), reference))
        predicted.append({s.step: s for s in result.accuracy.steps}[
            "directions (post-release)"].predicted)
        bound = result.fits["rank"].bound
        widths.append(bound.halfwidth())
        step = result.ledger["rank"].to_frame()["step"].iloc[0]
        facts = {"r": step.split(">= ")[1].split(" ")[0] if ">=" in step else "all",
                 "noise": bound.sigma}
    r = facts["r"]
    return {"sin": statistics.median(sines), "predicted": statistics.median(predicted),
            "half": statistics.median(widths), "r": r, "noise": facts["noise"],
            "design_sd": block_design_sd(x.shape[0], None if r == "all" else int(r))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 50,000, 3 seeds")
    parser.add_argument("--n", type=int, default=None, help="rows (default 200,000)")
    parser.add_argument("--p", type=int, default=10, help="columns (default 10)")
    parser.add_argument("--seeds", type=int, default=None, help="seeds per cell (default 5)")
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0, 4.0])
    parser.add_argument("--out", type=Path, help="also write the header and table to this file")
    args = parser.parse_args(argv)
    n = args.n or (50_000 if args.quick else 200_000)
    seeds = args.seeds or (3 if args.quick else 5)
    x = two_factor(n, args.p)
    reference = nonprivate_latent_directions(x, 2).vectors
    lines = provenance.header(provenance.collect(
        note=f"rank path, block design vs complete statistic: n = {n}, p = {args.p}, k = 2, "
             f"delta 1e-5, medians of {seeds} seeds")).splitlines()
    lines.append(f"{'eps':>5} {'design':>9} {'r':>5} {'sin-theta':>10} {'predicted':>10} "
                 f"{'ratio':>6} {'half-width':>11} {'noise sd':>9} {'design sd':>10}")
    print("\n".join(lines), flush=True)
    for eps in args.eps:
        for name, arguments in DESIGNS.items():
            cell = row(x, reference, eps, arguments, seeds)
            lines.append(f"{eps:>5g} {name:>9} {cell['r']:>5} {cell['sin']:>10.4f} "
                         f"{cell['predicted']:>10.4f} {cell['sin'] / cell['predicted']:>6.2f} "
                         f"{cell['half']:>11.4f} {cell['noise']:>9.2e} {cell['design_sd']:>10.2e}")
            print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
