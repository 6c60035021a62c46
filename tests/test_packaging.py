"""The wheel ships the datasets: build it, install it outside the repo, load each dataset."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

CHECK = """
import dppca, sys
from dppca import load_adult, load_gau, load_gau_g
assert dppca.__file__.startswith(sys.argv[1]), dppca.__file__
shapes = [load_gau().shape, load_gau_g().shape, load_adult().shape, load_adult(labels=True).shape]
assert shapes == [(5000, 20), (5000, 21), (32561, 5), (32561, 14)], shapes
print("ok", dppca.__file__)
"""


@pytest.mark.slow
def test_wheel_contains_datasets(tmp_path):
    pytest.importorskip("build")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist),
                    str(ROOT)], check=True, capture_output=True)
    wheel = next(dist.glob("dppca-*.whl"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-c", CHECK, str(site)], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ok")
