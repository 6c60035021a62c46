"""Benchmark: the cost of calling dppca from R through dppcapy (reticulate).

Run ``python benchmarks/bench_r.py`` (or ``--quick``). It installs r-wrapper into a
temporary R library, starts one R session with RETICULATE_PYTHON = .venv-r's Python, and
in that same process times, after one untimed warm-up call each:

* ``dppcapy::dp_pc_dir(gau, k=3, g_dppca=TRUE, eps=3, delta=1e-4, seed=s)`` from R;
* ``dppca.dp_pc_dir(gau, k=3, g_dppca=True, eps=3, delta=1e-4, rng=s)`` called directly in
  the embedded Python on the same pandas DataFrame;

and prints their medians. The overhead per call is measured inside each R call: its wall
time minus the time of ``dppca.dp_pc_dir`` within it (a timing wrapper is put around the
Python function), i.e. the R -> pandas conversion of X, the seed, the R object built from
the result's payload (with the summary text), error and warning handling. The same on 200
rows of gau. Target: overhead < 50 ms per call.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50.0

R_SCRIPT = r"""
suppressMessages(library(dppcapy, lib.loc = Sys.getenv("BENCH_R_LIB")))
reps <- as.integer(Sys.getenv("BENCH_REPS"))
stopifnot(dppca_available())
# Time dppca.dp_pc_dir itself inside every call, so that the overhead of a dppcapy call is
# measured within that call (free of the run-to-run noise of the computation).
bench <- reticulate::py_run_string(paste(
  "import time, dppca",
  "inner = dppca.dp_pc_dir",
  "inner_seconds = []",
  "def timed_inner(*args, **kwargs):",
  "    t0 = time.perf_counter()",
  "    try:",
  "        return inner(*args, **kwargs)",
  "    finally:",
  "        inner_seconds.append(time.perf_counter() - t0)",
  "dppca.dp_pc_dir = timed_inner",
  "def python_call(X, seed):",
  "    t0 = time.perf_counter()",
  "    inner(X, 3, g_dppca=True, eps=3, delta=1e-4, rng=seed)",
  "    return time.perf_counter() - t0", sep = "\n"), convert = FALSE)
r_call <- function(X, s) {
  t0 <- Sys.time()
  dp_pc_dir(X, k = 3, g_dppca = TRUE, eps = 3, delta = 1e-4, seed = s)
  as.double(Sys.time() - t0, units = "secs")
}
for (n in c(nrow(gau), 200L)) {
  X <- gau[seq_len(n), ]
  frame <- reticulate::r_to_py(X)
  r_call(X, 0L); bench$python_call(frame, 0L)        # warm-up
  r <- inside <- p <- numeric(reps)
  for (s in seq_len(reps)) {                          # alternate, so drift hits both
    r[s] <- r_call(X, s)
    inside[s] <- reticulate::py_to_r(bench$inner_seconds)[[length(bench$inner_seconds)]]
    p[s] <- reticulate::py_to_r(bench$python_call(frame, s))
  }
  cat(sprintf("RESULT %d %d %.6f %.6f %.6f\n", n, reps, median(r), median(p), median(r - inside)))
}
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--reps", type=int, default=None, help="timed calls per row (default 7, quick 3)")
    args = parser.parse_args(argv)
    reps = args.reps or (3 if args.quick else 7)
    subprocess.run(["bash", str(ROOT / "tools" / "make_r_venv.sh")], check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as lib:
        subprocess.run(["R", "CMD", "INSTALL", "--no-test-load", "-l", lib, str(ROOT / "r-wrapper")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        env = dict(os.environ, BENCH_R_LIB=lib, BENCH_REPS=str(reps),
                   RETICULATE_PYTHON=str(ROOT / ".venv-r" / "bin" / "python"))
        run = subprocess.run(["Rscript", "-e", R_SCRIPT], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"the R session failed:\n{run.stderr}")
    rows = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("RESULT")]
    print_table(rows)


def print_table(rows):
    print("dp_pc_dir(gau[1:n, ], k=3, g_dppca=TRUE, eps=3, delta=1e-4): R (dppcapy) vs Python "
          "(dppca), same process")
    header = (f"{'n':>6}{'reps':>6}{'R call ms':>12}{'Python call ms':>16}{'R/Python':>10}"
              f"{'overhead ms':>13}  target")
    print(header)
    print("-" * len(header))
    for n, reps, r_med, p_med, overhead in rows:
        r_med, p_med, overhead = (1000 * float(v) for v in (r_med, p_med, overhead))
        verdict = "ok" if overhead < TARGET_MS else "MISSED"
        print(f"{n:>6}{reps:>6}{r_med:>12.1f}{p_med:>16.1f}{r_med / p_med:>10.2f}{overhead:>13.1f}"
              f"  < {TARGET_MS:.0f} ms {verdict}")
    print("medians; overhead = R call minus the dppca.dp_pc_dir time inside that same call "
          "(X to pandas, seed, the R object from the payload, summary text, error handling)")


if __name__ == "__main__":
    main()
