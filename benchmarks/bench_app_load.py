"""Benchmark: page latency of the app while other sessions' runs compute (issue 25, item 4).

Run ``python benchmarks/bench_app_load.py`` (about 3 minutes on 2 cores; ``--quick`` for less).

The app serves ``--data`` (gau rows repeated with noise to ``--rows`` rows) from this checkout and,
with ``--compare REV``, from a git revision of it (exported to a temporary folder, e.g. the
commit before the runs left the event loop), measured in the same run. For each: the median and maximum time from opening a new page to
its budget bar (a new session: HTML, websocket, first render) over ``--loads`` loads, first
with the server idle, then while ``--runners`` other sessions each run scree after scree.
Headless Chromium from Debian through Playwright, as tests/app.
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("DPPCA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def main(argv=None):
    args = parse_args(argv)
    if args.quick:
        args.rows, args.loads = 20_000, 4
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        roots = {"working tree": ROOT}
        for rev in args.compare:
            roots[rev] = Path(folder) / rev
            roots[rev].mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "dppca"],
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(roots[rev])], input=archive, check=True)
        data = Path(folder) / "rows.csv"
        write_rows(data, args.rows)
        print(f"data: {args.rows} rows x 20 (gau repeated with noise); {args.runners} running "
              f"session(s) run scree (k = 4) after scree; {args.loads} page loads each\n")
        print(f"{'app':<16}{'server':<9}{'median s':>10}{'max s':>8}{'runs done':>11}")
        for name, root in roots.items():
            server, url = start(root, data)
            try:
                with sync_playwright() as p:
                    browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                args=["--no-sandbox", "--disable-dev-shm-usage"])
                    for state in ("idle", "busy"):
                        stop, done = threading.Event(), []
                        runners = [threading.Thread(target=run_scree_loop, args=(url, stop, done))
                                   for _ in range(args.runners if state == "busy" else 0)]
                        for thread in runners:
                            thread.start()
                        if runners:
                            time.sleep(args.warmup)  # the first runs have started
                        times = [load_seconds(browser, url) for _ in range(args.loads)]
                        stop.set()
                        for thread in runners:
                            thread.join()
                        print(f"{name[:15]:<16}{state:<9}{statistics.median(times):>10.2f}"
                              f"{max(times):>8.2f}{sum(done):>11}", flush=True)
                    browser.close()
            finally:
                server.terminate()
                server.wait()


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs="*", default=[],
                        help="git revisions whose app is measured too, in the same run")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runners", type=int, default=2)
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true")
    return parser.parse_args(argv)


def write_rows(path, rows):
    sys.path.insert(0, str(ROOT))
    from dppca import load_gau

    gau = load_gau().to_numpy()
    rng = np.random.default_rng(0)
    values = gau[rng.integers(0, len(gau), rows)] + rng.normal(scale=0.1, size=(rows, gau.shape[1]))
    header = ",".join(f"V{i + 1}" for i in range(gau.shape[1]))
    np.savetxt(path, values, delimiter=",", header=header, comments="", fmt="%.6g")


def start(root, data):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(root), MPLBACKEND="Agg")
    server = subprocess.Popen([sys.executable, "-m", "dppca.cli", "app", "--data", str(data),
                               "--eps-total", "1000", "--delta-total", "0.5", "--port", str(port),
                               "--no-browser"], cwd=root, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError(f"the app of {root} did not start")


def load_seconds(browser, url) -> float:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(300_000)
    start_time = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("#budget")
    seconds = time.perf_counter() - start_time
    context.close()
    return seconds


def run_scree_loop(url, stop, done):
    """One session running scree after scree (a new eps each time: no cached result)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.set_default_timeout(300_000)
        page.goto(url)
        page.wait_for_selector("#budget")
        page.fill("#delta", "1e-4")
        page.press("#delta", "Tab")
        runs = 0
        while not stop.is_set():
            page.fill("#eps", f"{0.5 + 0.001 * runs:g}")
            page.press("#eps", "Tab")
            page.get_by_role("tab", name="Scree controls").click()
            page.click("#run_scree")
            runs += 1
            page.wait_for_selector(f"#budget[data-runs='{runs}']")
        done.append(runs)
        browser.close()


if __name__ == "__main__":
    main()
