"""Exactness and speed of two post-processing kernels: sin-theta and the antitonic scree fit.

Issue 14.6 asked whether scipy can replace two home-made kernels; this script measures the
old code (kept here, verbatim, as the baseline) against scipy in the same run.

1. ``sin_theta`` (sine of the largest principal angle between two p x k subspaces):
   old = sqrt(1 - s_min^2), s_min the smallest singular value of V1^T V2;
   new = sin of the largest angle of ``scipy.linalg.subspace_angles`` (Knyazev & Argentati
   2002: the sine-based formula for small angles). Battery: exact constructions
   V1 = Q [I_k; 0], V2 = Q [diag(cos t); diag(sin t); 0] with a random orthogonal Q and the
   largest angle t in {1e-12, 1e-10, 1e-8, 1e-6, 1e-3, 0.1, 1, pi/2}; the reference is the
   same quantity computed by mpmath at 60 digits from the float matrices (orthonormalised in
   high precision, then the largest singular value of (I - P1) Q2). Relative error, worst
   over ``--draws`` random Q per row.
2. ``antitonic`` (least-squares non-increasing fit, equal weights):
   old = the pool-adjacent-violators loop of ``results/scree.py``;
   new = ``scipy.optimize.isotonic_regression(y, increasing=False)`` (scipy >= 1.12).
   Reference: the same PAVA in exact rational arithmetic (``fractions.Fraction``) on the
   float inputs. Max relative error over random noisy scree vectors of length k.

Speed: median of ``--repeats`` timings of ``--loops`` calls (microseconds per call).

Usage::

    python benchmarks/bench_postprocessing.py            # 20 draws, 7 repeats
    python benchmarks/bench_postprocessing.py --quick    # 3 draws, 3 repeats
"""
from __future__ import annotations

import argparse
import timeit
from fractions import Fraction

import mpmath
import numpy as np
import pandas as pd
from scipy.linalg import subspace_angles
from scipy.optimize import isotonic_regression
from scipy.stats import ortho_group

ANGLES = (1e-12, 1e-10, 1e-8, 1e-6, 1e-3, 0.1, 1.0, np.pi / 2)


# ---------------------------------------------------------------------------- sin-theta
def sin_theta_old(V1, V2) -> float:
    smallest = np.linalg.svd(V1.T @ V2, compute_uv=False).min()
    return float(np.sqrt(max(0.0, 1.0 - min(smallest, 1.0) ** 2)))


def sin_theta_new(V1, V2) -> float:
    return float(np.sin(subspace_angles(V1, V2)[0]))


def sin_theta_mp(V1, V2, dps=60) -> float:
    with mpmath.workdps(dps):
        Q1 = mpmath.qr(mpmath.matrix(V1.tolist()))[0][:, :V1.shape[1]]
        Q2 = mpmath.qr(mpmath.matrix(V2.tolist()))[0][:, :V2.shape[1]]
        residual = Q2 - Q1 * (Q1.T * Q2)
        return float(max(mpmath.svd_r(residual, compute_uv=False)))


def subspace_pair(p, k, largest, rng):
    """V1 = Q [I; 0], V2 = Q [cos; sin; 0] with angles geometric from largest/10 up to largest."""
    angles = largest * np.logspace(-1, 0, k)
    basis = np.zeros((p, k))
    basis[:k] = np.eye(k)
    tilted = np.zeros((p, k))
    tilted[:k] = np.diag(np.cos(angles))
    tilted[k:2 * k] = np.diag(np.sin(angles))
    Q = ortho_group.rvs(p, random_state=rng)
    return Q @ basis, Q @ tilted


def sin_theta_table(draws, p=12, k=3) -> pd.DataFrame:
    rng = np.random.default_rng(14)
    rows = []
    for largest in ANGLES:
        errors = {"old": [], "new": []}
        for _ in range(draws):
            V1, V2 = subspace_pair(p, k, largest, rng)
            reference = sin_theta_mp(V1, V2)
            errors["old"].append(abs(sin_theta_old(V1, V2) - reference) / reference)
            errors["new"].append(abs(sin_theta_new(V1, V2) - reference) / reference)
        rows.append({"largest angle": largest, "sin (reference)": np.sin(largest),
                     "rel. error old (max)": max(errors["old"]),
                     "rel. error new (max)": max(errors["new"])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- antitonic
def antitonic_old(values) -> np.ndarray:
    means, sizes = [], []
    for value in np.asarray(values, float):
        means.append(value)
        sizes.append(1)
        while len(means) > 1 and means[-2] < means[-1]:
            mean, size = means.pop(), sizes.pop()
            means[-1] = (means[-1] * sizes[-1] + mean * size) / (sizes[-1] + size)
            sizes[-1] += size
    return np.repeat(means, sizes)


def antitonic_new(values) -> np.ndarray:
    return isotonic_regression(np.asarray(values, float), increasing=False).x


def antitonic_exact(values) -> list:
    blocks = []  # [sum, size] in exact rationals
    for value in values:
        blocks.append([Fraction(float(value)), 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] < blocks[-1][0] * blocks[-2][1]:
            total, size = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += size
    return [total / size for total, size in blocks for _ in range(size)]


def noisy_scree(k, rng):
    """Decreasing truth 10 * 0.7^j plus noise of sd 1: many violations to pool."""
    return 10 * 0.7 ** np.arange(k) + rng.standard_normal(k)


def antitonic_table(draws) -> pd.DataFrame:
    rng = np.random.default_rng(15)
    rows = []
    for k in (2, 5, 10, 50, 1000):
        worst = {"old": 0.0, "new": 0.0}
        for _ in range(draws * 10):
            raw = noisy_scree(k, rng)
            exact = antitonic_exact(raw)
            for name, fit in (("old", antitonic_old(raw)), ("new", antitonic_new(raw))):
                rel = max(float(abs(Fraction(float(f)) - e) / max(abs(e), Fraction(1, 10**300)))
                          for f, e in zip(fit, exact))
                worst[name] = max(worst[name], rel)
        rows.append({"k": k, "rel. error old (max)": worst["old"],
                     "rel. error new (max)": worst["new"]})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- speed
def microseconds(call, repeats, loops) -> float:
    return float(np.median(timeit.repeat(call, number=loops, repeat=repeats))) / loops * 1e6


def speed_table(repeats) -> pd.DataFrame:
    rng = np.random.default_rng(16)
    rows = []
    for p, k in ((20, 2), (200, 5), (2000, 10)):
        V1, V2 = subspace_pair(p, k, 1e-3, rng)
        old = microseconds(lambda: sin_theta_old(V1, V2), repeats, 200)
        new = microseconds(lambda: sin_theta_new(V1, V2), repeats, 200)
        rows.append({"kernel": f"sin_theta p={p} k={k}", "old (us)": old, "new (us)": new,
                     "new / old": new / old})
    for k in (5, 50, 1000):
        raw = noisy_scree(k, rng)
        old = microseconds(lambda: antitonic_old(raw), repeats, 200)
        new = microseconds(lambda: antitonic_new(raw), repeats, 200)
        rows.append({"kernel": f"antitonic k={k}", "old (us)": old, "new (us)": new,
                     "new / old": new / old})
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    draws, repeats = (3, 3) if args.quick else (args.draws, args.repeats)
    with pd.option_context("display.float_format", "{:.3g}".format, "display.width", 120):
        print(f"sin_theta: relative error against mpmath (60 digits), p=12, k=3, {draws} draws")
        print(sin_theta_table(draws).to_string(index=False), end="\n\n")
        print(f"antitonic: relative error against exact rational PAVA, {draws * 10} draws")
        print(antitonic_table(draws).to_string(index=False), end="\n\n")
        print(f"speed: median of {repeats} repeats of 200 calls")
        print(speed_table(repeats).to_string(index=False))


if __name__ == "__main__":
    main()
