"""A running app (``dppca app`` in a subprocess on a free 127.0.0.1 port) and a headless
Chromium from Debian driven by Playwright (Playwright's own browser download is not used)."""
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("DPPCA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port, process, seconds=60):
    """Poll until the server accepts connections (not a test timing: a start-up guard)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with {process.returncode}: {process.stderr.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the app did not listen on port {port}")


def start_app(*arguments):
    """Start ``dppca app --no-browser`` with these arguments; returns (process, url)."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    process = subprocess.Popen([sys.executable, "-m", "dppca.cli", "app", "--port", str(port),
                                "--no-browser", *arguments], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_port(port, process)
    return process, f"http://127.0.0.1:{port}/"


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def app_url():
    process, url = start_app()
    yield url
    stop(process)


@pytest.fixture(scope="session")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                                         "(pip install -e '.[dev]')")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} "
                    "(bash tools/install_system_deps.sh installs it)")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser):
    """Pages in fresh browser contexts (separate cookies and Shiny sessions)."""
    contexts = []

    def make(url):
        context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                      accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url)
        page.wait_for_selector("#budget")
        return page

    yield make
    for context in contexts:
        context.close()
