"""k-DP-Ojas's opt-in calibration by shuffling and its declared-model bound (issue 22)."""
import math

import numpy as np
import pytest

from dppca import DPPCAValueError, dp_pc_dir
from dppca.methods.k_dp_ojas import MODEL_FAILURE_PROB, k_dp_ojas_directions
from dppca.metrics import sin_theta
from dppca.privacy import Ledger, gaussian_sigma
from dppca.privacy.shuffle import shuffle_local_budget


def _spiked(n, seed, p=4):
    """Gaussian rows with covariance V diag(10, 5) V^T + 0.05^2 I (mean 0)."""
    rng = np.random.default_rng(seed)
    V = np.linalg.qr(rng.standard_normal((p, 2)))[0]
    return (rng.standard_normal((n, 2)) * np.sqrt([10.0, 5.0])) @ V.T + 0.05 * rng.standard_normal((n, p)), V


def _fit(X, k=1, eps=1.0, delta=1e-5, seed=0, **options):
    ledger = Ledger(eps, delta)
    fit = k_dp_ojas_directions(X, k, eps=eps, delta=delta, rng=np.random.default_rng(seed),
                               calibration="analytic", ledger=ledger, **options)
    return fit, ledger


def test_shuffle_noise_is_the_local_budgets_gaussian_and_below_parallel():
    X, _ = _spiked(4000, seed=1)
    shuffled, ledger = _fit(X, norm_bound=5.0, amplification="shuffle")
    parallel, _ = _fit(X, norm_bound=5.0)
    beta = 25.0
    local = shuffle_local_budget(2000, 1.0, 1e-5)  # m = 2,000 paired differences, secret order
    assert shuffled.noise_sd == pytest.approx(gaussian_sigma(2 * beta, local.eps0, local.delta0))
    assert parallel.noise_sd == pytest.approx(gaussian_sigma(2 * beta, 1.0, 1e-5))
    # eps0 = 2.19 (FMT21 Theorem 3.8 with Theorem 3.1's closed form) against 1 at this m:
    # sd ratio 0.709 (analytic calibration at both budgets)
    assert local.amplified and shuffled.noise_sd < 0.75 * parallel.noise_sd
    release = ledger.releases[-1]
    assert release.mechanism == "Gaussian (analytic) + shuffling"
    assert (release.eps, release.delta) == (1.0, 1e-5)  # the central budget is what is spent
    assert "amplification by shuffling" in shuffled.notes[0]


@pytest.mark.parametrize("n, phrase", [
    # m = 700 steps: in Theorem 3.8's range, but eps0 = 1.20 with a 1,000x smaller delta0
    # needs more noise than parallel composition, which is kept
    (1400, "parallel composition needed less noise"),
    # m = 3 steps: below the range (m <= 591 at (1, 1e-5)), no amplification is claimed
    (6, "no amplification claimed"),
])
def test_shuffle_keeps_parallel_composition_when_that_needs_less_noise(n, phrase):
    # the choice depends on public m, eps, delta only
    X, _ = _spiked(n, seed=2)
    fit, ledger = _fit(X, norm_bound=5.0, amplification="shuffle")
    assert fit.noise_sd == pytest.approx(gaussian_sigma(50.0, 1.0, 1e-5))
    assert ledger.releases[-1].mechanism == "Gaussian (analytic)"
    assert phrase in fit.notes[0]


def test_shuffle_draws_a_secret_order_from_the_generator():
    X, _ = _spiked(400, seed=3)
    a, _ = _fit(X, eps=5.0, seed=7, norm_bound=5.0, amplification="shuffle")
    b, _ = _fit(X, eps=5.0, seed=7, norm_bound=5.0, amplification="shuffle")
    c, _ = _fit(X, eps=5.0, seed=8, norm_bound=5.0, amplification="shuffle")
    np.testing.assert_array_equal(a.vectors, b.vectors)  # reproducible from the seed
    assert not np.allclose(a.vectors, c.vectors)  # another seed, another order and noise


def test_shuffled_fit_recovers_the_spiked_direction_with_little_noise():
    # eps = 1e4: noise sd ~ 2 beta / 1e4 per step, far below the gradients (~10); 2,000 Oja
    # steps then give a sin-theta of order sqrt(lambda_1 / (gap^2 m)) ~ 0.03; 0.15 is 5x that.
    X, V = _spiked(4000, seed=4)
    fit, _ = _fit(X, eps=1e4, amplification="shuffle", centring="none", top_eigenvalue=10.0,
                  noise_sd=0.05)
    assert sin_theta(fit.vectors, V[:, :1]) < 0.15


def test_declared_model_bound_is_public_free_and_labelled():
    X, _ = _spiked(1000, seed=5)
    fit, ledger = _fit(X, centring="none", top_eigenvalue=10.0, noise_sd=0.05)
    bound = math.sqrt(10.0) + 0.05 * math.sqrt(4 * math.log(1000 / MODEL_FAILURE_PROB))
    assert fit.sensitivity == pytest.approx(2 * bound ** 2)
    declared = ledger.releases[0]
    assert declared.mechanism == "public (declared)" and (declared.eps, declared.delta) == (0.0, 0.0)
    assert "lambda_1 = 10" in declared.step
    assert ledger.spent_eps == pytest.approx(1.0)  # no private bound: the steps get everything
    assert "1000 rows (mean declared 0)" in fit.notes[0].replace("about ", "")


@pytest.mark.parametrize("options, match", [
    ({"top_eigenvalue": 10.0}, "declare the model together"),
    ({"top_eigenvalue": 10.0, "noise_sd": 0.1, "norm_bound": 3.0}, "replace `norm_bound`"),
    ({"top_eigenvalue": -1.0, "noise_sd": 0.1}, "`top_eigenvalue`"),
    ({"amplification": "random"}, "`amplification` must be one of"),
    ({"centring": "mean"}, "`centring` must be one of"),
])
def test_bad_model_options_name_the_rule(options, match):
    X, _ = _spiked(50, seed=6)
    with pytest.raises(DPPCAValueError, match=match):
        dp_pc_dir(X, 1, method="k_dp_ojas", eps=1, delta=1e-5, rng=0, **options)


def test_summary_shows_the_declared_model_on_the_ledger():
    X, _ = _spiked(1000, seed=7)  # m = 1,000 rows: amplified from 967 on at (1, 1e-5)
    result = dp_pc_dir(X, 1, method="k_dp_ojas", eps=1, delta=1e-5, rng=0, centring="none",
                       top_eigenvalue=10.0, noise_sd=0.05, amplification="shuffle",
                       missing=0.0)  # complete data, declared so: no median release
    frame = result.ledger.to_frame()
    assert list(frame["mechanism"]) == ["public (declared)", "Gaussian (analytic) + shuffling"]


@pytest.mark.slow
def test_figure4_reproduction_quick_mode(tmp_path):
    # One trial at n = 2,500: the noiseless line (NOT DP) is the algorithm without privacy
    # noise, so with 1,250 Oja steps per component and gap 5 it is near 1 (measured 1.000);
    # every line is labelled and each utility is a fraction of the top-2 variance.
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pandas as pd

    repo = Path(__file__).resolve().parents[1]
    env = os.environ | {"MPLBACKEND": "Agg", "PYTHONPATH": str(repo)}
    result = subprocess.run([sys.executable, str(repo / "benchmarks" / "reproduce_dungler_sanyal.py"),
                             "--figure4", "--quick", "--out", str(tmp_path)], capture_output=True,
                            text=True, cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    summary = pd.read_csv(tmp_path / "dungler_sanyal_fig4_quick_summary.csv", comment="#").set_index("method")
    assert summary.loc["k-DP-Ojas noiseless, paper settings (NOT DP)", "utility"] > 0.95
    assert summary["utility"].between(0, 1).all()
    assert "NOT DP" in result.stdout and "shuffle-amplified" in result.stdout
    assert (tmp_path / "dungler_sanyal_fig4_quick_utility_vs_n.png").exists()
