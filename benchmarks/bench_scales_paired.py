"""The private scale estimator's effect on the README path, paired across code versions.

The directions run on the README path's rest of the budget (1 - SCALE_SHARE of mu^2, rng = seed)
with ``scale=`` the private scales at eps = 4 and the default share (rng = 1000 + seed): the
directions' noise is the same for any version of the scale estimator, so running this script on
two trees (PYTHONPATH) and differencing the saved per-seed sin-theta gives a paired comparison.

Usage: python benchmarks/bench_scales_paired.py TAG SEEDS SET [SET ...]
       (saves OUTDIR/paired_TAG_SET.npy, OUTDIR = $PAIRED_OUT or /tmp; prints the means)
"""
from __future__ import annotations

import argparse
import os
import warnings

import numpy as np

from dppca import dp_pc_dir
from dppca.directions import SCALE_SHARE
from dppca.metrics import sin_theta
from dppca.preprocessing import as_matrix, private_column_scales
from dppca.privacy.composition import GaussianGroup

from bench_small_data import DELTA, _standardized, _top, matrix

EPS = 4.0


def paired_run(name: str, seeds: int) -> np.ndarray:
    """Per-seed sin-theta of the directions with the private scales declared, on the rest."""
    X = matrix(name)
    mat, V = as_matrix(X), _top(_standardized(X))
    rest = GaussianGroup(EPS, DELTA).standalone(1 - SCALE_SHARE)
    out = []
    for seed in range(seeds):
        s = private_column_scales(mat, rng=np.random.default_rng(1000 + seed),
                                  noise=GaussianGroup(EPS, DELTA).share(SCALE_SHARE))
        fit = dp_pc_dir(X, 2, standardize=True, eps=rest[0], delta=rest[1], rng=seed, scale=s)
        out.append(sin_theta(fit.directions.to_numpy(), V))
    return np.array(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag", help="names the saved files: OUTDIR/paired_TAG_SET.npy")
    parser.add_argument("seeds", type=int, help="seeds 0..SEEDS-1")
    parser.add_argument("sets", nargs="+", metavar="SET", help="bench_small_data set names")
    args = parser.parse_args(argv)
    outdir = os.environ.get("PAIRED_OUT", "/tmp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.sets:
            values = paired_run(name, args.seeds)
            np.save(os.path.join(outdir, f"paired_{args.tag}_{name}.npy"), values)
            print(args.tag, name, f"{values.mean():.4f}", flush=True)


if __name__ == "__main__":
    main()
