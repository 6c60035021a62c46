"""Mutation check of the privacy tests: weaken one mechanism at a time, see whether a test fails.

Run ``python benchmarks/mutations.py`` (about 10-30 minutes on 2 shared cores: a killed mutant
stops at its first failing test, ``-x``; a surviving one and the baseline run every file) or
``--only M2 M7`` for a few. For each mutant of :data:`MUTANTS` it copies the repository's
files (tracked and untracked, not ignored) into a temporary folder, applies the mutant's exact
search/replace patches, runs ``pytest -x`` on :data:`TEST_FILES` with PYTHONPATH at the copy,
and prints

    mutant | what it weakens | killed/survived | first failing test | seconds

A mutant is killed when pytest fails (exit status 1); any other status (a collection or usage
error) is reported as an error, never as a kill. The baseline (no patch) must pass first.

The patches are text replacements of exact source lines: when the code moves, a patch no longer
applies and the script stops with the mutant, the file and the missing line, so the anchor can
be updated (the private scales are being rewritten: M3c's anchor in
``dppca/preprocessing/scale_releases.py`` may need updating after that work lands).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The privacy tests, cheapest and most targeted first (``-x`` stops at the first failure);
#: every file of tests/privacy, named one by one (a folder argument would reorder them).
TEST_FILES = ("tests/test_samplers.py", "tests/test_privacy.py", "tests/privacy/test_ledger_noise.py",
              "tests/privacy/test_neighbour_outputs.py", "tests/privacy/test_pair_statistics_fp.py",
              "tests/privacy/test_smooth_release.py", "tests/privacy/test_audit.py",
              "tests/privacy/test_surface.py")


@dataclass(frozen=True)
class Mutant:
    """One weakened mechanism: exact (old, new) line replacements in one file."""

    name: str
    description: str
    path: str
    patches: tuple


MUTANTS = (
    Mutant("M2", "every Gaussian-DP share draws sigma/2", "dppca/privacy/composition.py",
           (("        return sensitivity / (math.sqrt(self.fraction) * self.group.mu)\n",
             "        return sensitivity / (math.sqrt(self.fraction) * self.group.mu) / 2\n"),)),
    Mutant("M2s", "the vector sampler draws half its noise, returned sigma (ledger) unchanged",
           "dppca/privacy/samplers.py",
           (("    k = discrete_gaussian(used / gamma, value.size, rng).reshape(value.shape)\n",
             "    k = discrete_gaussian(used / gamma / 2, value.size, rng).reshape(value.shape)\n"),)),
    Mutant("M3c", "private-scale moment noise calibrated for half the sensitivity",
           "dppca/preprocessing/scale_releases.py",
           (("    noisy, sigma = noise.release(weights * means, sensitivity, rng, ledger, step)\n",
             "    noisy, sigma = noise.release(weights * means, sensitivity / 2, rng, ledger, step)\n"),)),
    Mutant("M7", "Gaussian grid coarsened from 2^-46 sigma to 2^-12 sigma", "dppca/privacy/samplers.py",
           (("GAUSSIAN_GRID_BITS = 46\n", "GAUSSIAN_GRID_BITS = 12\n"),)),
    Mutant("M7c", "symmetric (g-DPPCA matrix) release: snapping slack dropped", "dppca/privacy/samplers.py",
           (("    used = _inflated(sigma, p * gamma, sensitivity)\n",
             "    used = _inflated(sigma, 0.0, sensitivity)\n"),)),
    Mutant("M7d", "symmetric (g-DPPCA matrix) release: not snapped", "dppca/privacy/samplers.py",
           (("    out[rows, cols] = exact_sum(snap(value[rows, cols], gamma), k_off, gamma)\n",
             "    out[rows, cols] = exact_sum(value[rows, cols], k_off, gamma)\n"),
            ("    out[np.diag_indices(p)] = exact_sum(snap(np.diag(value), gamma), k_diag, gamma)\n",
             "    out[np.diag_indices(p)] = exact_sum(np.diag(value), k_diag, gamma)\n"))),
    Mutant("M8", "the ledger's delta-overspend check removed", "dppca/privacy/budget.py",
           (("                self.spent_delta + release.delta > self.delta * (1 + _BUDGET_RTOL) + 1e-300:\n",
             "                False:\n"),)),
    Mutant("M9", "g-DPPCA draws half its sigma", "dppca/methods/gdppca.py",
           (("    released, sigma = add_symmetric_gaussian_noise(statistic, sigma, sensitivity, rng)\n",
             "    released, sigma = add_symmetric_gaussian_noise(statistic, sigma / 2, sensitivity, rng)\n"),)),
    Mutant("M10", "k_dp_pca PrivMean draws half its sigma", "dppca/methods/k_dp_pca_mean.py",
           (("    return add_gaussian_noise(clipped_mean(G, centres, half), sigma, sensitivity, rng)[0]\n",
             "    return add_gaussian_noise(clipped_mean(G, centres, half), sigma / 2, sensitivity, rng)[0]\n"),)),
    Mutant("M11", "dp_sggd draws half its sigma", "dppca/methods/dp_sggd.py",
           (("    return add_gaussian_noise(descent_direction(points, V, B), sigma, 2.0 / B, rng)[0]\n",
             "    return add_gaussian_noise(descent_direction(points, V, B), sigma / 2, 2.0 / B, rng)[0]\n"),)),
)


class PatchError(RuntimeError):
    """A mutant's anchor line is not (exactly once) in its file: the code moved."""


def apply(mutant: Mutant, root: Path) -> None:
    """Apply ``mutant``'s patches in the copy at ``root``; PatchError when one does not apply."""
    target = root / mutant.path
    text = target.read_text()
    for old, new in mutant.patches:
        count = text.count(old)
        if count != 1:
            raise PatchError(f"mutant {mutant.name} no longer applies: {mutant.path} contains the line "
                             f"{old.strip()!r} {count} times (expected once); update its anchor")
        text = text.replace(old, new)
    target.write_text(text)


def copy_repository(destination: Path) -> None:
    """The working tree's tracked and untracked (not ignored) files, as they are now."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)


def run_tests(root: Path, python: str, files=TEST_FILES) -> tuple[int, str]:
    """pytest -x on ``files`` in ``root``; (exit status, first failing test or '')."""
    env = dict(os.environ, PYTHONPATH=str(root), MPLBACKEND="Agg")
    done = subprocess.run([python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *files],
                          cwd=root, env=env, capture_output=True, text=True)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, flags=re.M)
    return done.returncode, failed[0] if failed else ""


def missing_test_files() -> list:
    """Test files of tests/privacy that TEST_FILES does not name (a new file must be added)."""
    present = {str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "privacy").glob("test_*.py")}
    return sorted(present - set(TEST_FILES))


def check(mutant: Mutant | None, python: str) -> tuple[str, str, float]:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dppca-mutant-") as folder:
        root = Path(folder)
        copy_repository(root)
        if mutant is not None:
            apply(mutant, root)
        status, first = run_tests(root, python)
    state = {0: "survived", 1: "killed"}.get(status, f"error (pytest exit {status})")
    if mutant is None:
        state = {0: "passes", 1: "FAILS"}.get(status, state)
    return state, first, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutant names to run (default: all)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unpatched run")
    args = parser.parse_args(argv)
    if missing_test_files():
        parser.error(f"add {missing_test_files()} to TEST_FILES")
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    for mutant in chosen:  # every anchor first: a moved line stops the script before any run
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / mutant.path).parent.mkdir(parents=True)
            shutil.copy2(ROOT / mutant.path, Path(folder) / mutant.path)
            apply(mutant, Path(folder))
    print("mutant | what it weakens | result | first failing test | seconds")
    print("--- | --- | --- | --- | ---")
    bad = 0
    if not args.no_baseline:
        state, first, seconds = check(None, sys.executable)
        print(f"baseline | no patch | {state} | {first or '-'} | {seconds:.0f}", flush=True)
        bad += state != "passes"
    for mutant in chosen:
        state, first, seconds = check(mutant, sys.executable)
        print(f"{mutant.name} | {mutant.description} | {state} | {first or '-'} | {seconds:.0f}",
              flush=True)
        bad += state != "killed"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
