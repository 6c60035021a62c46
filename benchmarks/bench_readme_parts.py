"""Where the README path loses to the sample SD declared public (issue 20, "Done when", README path).

For each set with n >= 400 that misses the target (mean sin-theta of ``dp_pc_dir(standardize=True)``
at eps = 4 <= 1.25 x that of g-DPPCA with the sample SD declared), the ratio is split into its parts
by swapping one ingredient at a time (same seeds, delta = 1e-5, k = 2, target: the top-2
eigenvectors of the sample-SD-standardized covariance):

* "README": private scales (``SCALE_SHARE`` of mu^2) + g-DPPCA on the rest (the default path);
* "share 0.15": the README path with a smaller scale share;
* "SD declared": the sample SD declared public, the whole budget on the directions;
* "SD, rest": the sample SD, the directions on the README path's rest of the budget only
  (the budget the scales cost, with no scale error);
* "bias, rest": the private scales' estimator at eps = 1e4 (its bias, almost no noise), the
  directions on the rest of the budget (the scale model's bias, no scale noise);
* scale error: median over columns and seeds of |log2(private scale / SD)| at eps = 4 and 1e4.

Usage: python benchmarks/bench_readme_parts.py [--seeds 20] [--sets breast_cancer diabetes gau]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from dppca import dp_pc_dir
from dppca.directions import SCALE_SHARE
from dppca.metrics import sin_theta
from dppca.preprocessing import as_matrix, private_column_scales
from dppca.privacy.composition import GaussianGroup

from bench_small_data import DELTA, _standardized, _top, matrix

EPS, EPS_BIAS = 4.0, 1e4
#: A smaller scale share than the default, for the trade-off (less budget cost, noisier scales).
LOW_SHARE = 0.15


def parts(name: str, seeds: int) -> dict:
    """Mean sin-theta of each variant and the scales' median |log2 error| on one dataset."""
    X = matrix(name)
    mat, V, sd = as_matrix(X), _top(_standardized(X)), X.std(axis=0, ddof=1)
    rest = GaussianGroup(EPS, DELTA).standalone(1 - SCALE_SHARE)
    errors = {k: [] for k in ("README", f"share {LOW_SHARE:g}", "SD declared", "SD, rest",
                              "bias, rest")}
    log_error = {"eps 4": [], "eps 1e4": []}
    for seed in range(seeds):
        def angle(eps=EPS, delta=DELTA, **kw):
            return sin_theta(dp_pc_dir(X, 2, standardize=True, eps=eps, delta=delta, rng=seed,
                                       **kw).directions.to_numpy(), V)

        errors["README"].append(angle())
        errors[f"share {LOW_SHARE:g}"].append(angle(scale_share=LOW_SHARE))
        errors["SD declared"].append(angle(scale=sd))
        errors["SD, rest"].append(angle(*rest, scale=sd))
        for key, eps in (("eps 4", EPS), ("eps 1e4", EPS_BIAS)):
            s = private_column_scales(mat, rng=np.random.default_rng(1000 + seed),
                                      noise=GaussianGroup(eps, DELTA).share(SCALE_SHARE))
            log_error[key].append(np.abs(np.log2(s / sd)))
        errors["bias, rest"].append(angle(*rest, scale=s))  # s: the eps = 1e4 scales
    row = {"n": X.shape[0], "p": X.shape[1], **{k: np.mean(v) for k, v in errors.items()}}
    for k in ("README", f"share {LOW_SHARE:g}", "SD, rest", "bias, rest"):
        row[f"{k} / SD"] = row[k] / row["SD declared"]
    for key, values in log_error.items():
        row[f"|log2 s/SD| {key}"] = float(np.median(np.concatenate(values)))
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--sets", nargs="+", default=["breast_cancer", "diabetes", "gau"])
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = {name: parts(name, args.seeds) for name in args.sets}
    table = pd.DataFrame(rows).T.astype({"n": int, "p": int})
    print(f"README path parts at eps={EPS:g}, delta={DELTA:g}, k=2, {args.seeds} seeds, scale share "
          f"{SCALE_SHARE:g} (mean sin-theta; ratios to 'SD declared')")
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:.3g}".format):
        print(table)


if __name__ == "__main__":
    main()
