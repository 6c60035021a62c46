"""Serve the app from another process, so that the caller (a notebook, R through reticulate)
keeps control: :func:`start_app` returns a handle with the URL and ``stop()``.

The data go to the server process in a pickle file readable only by the user (in a private
temporary folder), which the server deletes as soon as it has read it; the server's log
stays in that folder (``server.log``).
"""
from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import webbrowser
from pathlib import Path

from .._validation import int_arg

#: Seconds :func:`start_app` waits for the server to listen before giving up.
START_TIMEOUT = 120


class BackgroundApp:
    """A running app in a child process.

    Attributes
    ----------
    url : str
        Address of the page.
    process : subprocess.Popen
    """

    def __init__(self, process: subprocess.Popen, url: str):
        self.process, self.url = process, url

    def running(self) -> bool:
        """Whether the server process is still alive."""
        return self.process.poll() is None

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __repr__(self) -> str:
        return f"BackgroundApp(url={self.url!r}, running={self.running()})"


def start_app(X=None, group=None, *, eps_total=None, delta_total=None, host="127.0.0.1", port=0,
              launch_browser=False, python=None, allow_remote=False) -> BackgroundApp:
    """Start :func:`dppca.app.run_app` in a child process and wait until it serves.

    Parameters
    ----------
    X, group, eps_total, delta_total, host
        As in :func:`dppca.app.run_app` (checked here first, so errors come back at once).
    port : int
        TCP port; 0 picks a free one.
    launch_browser : bool
        Open the page in the default web browser once it serves.
    python : str, optional
        Python executable of the child (default: this interpreter).
    allow_remote : bool
        Needed for a ``host`` beyond loopback (see :func:`dppca.app.run_app`).

    Returns
    -------
    BackgroundApp
        With ``url``, ``running()`` and ``stop()``.

    Raises
    ------
    DPPCATypeError, DPPCAValueError
        As :func:`dppca.app.create_app`, or a host beyond loopback without ``allow_remote``.
    RuntimeError
        If the server exits or does not listen within ``START_TIMEOUT`` seconds.

    Examples
    --------
    >>> from dppca.app.background import start_app
    >>> app = start_app()            # doctest: +SKIP
    >>> app.url, app.stop()          # doctest: +SKIP
    """
    from .factory import check_host, create_app

    create_app(X, group, eps_total=eps_total, delta_total=delta_total)  # the checks, now
    check_host(host, allow_remote)
    port = int_arg(port, "port", 0, 65535) or _free_port(host)
    folder = Path(tempfile.mkdtemp(prefix="dppca-app-"))  # mode 0700
    payload = folder / "data.pickle"
    with open(os.open(payload, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as handle:
        pickle.dump(dict(X=X, group=group, eps_total=eps_total, delta_total=delta_total,
                         host=host, port=port, allow_remote=allow_remote), handle)
    log = folder / "server.log"  # the server's messages (a pipe could fill and block it)
    with open(log, "w") as sink:
        process = subprocess.Popen([python or sys.executable, "-m", "dppca.app.background",
                                    str(payload)], stdout=sink, stderr=subprocess.STDOUT,
                                   env=_child_environment())
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    _wait_until_serving(process, host, port, log)
    if launch_browser:
        webbrowser.open(url)
    return BackgroundApp(process, url)


def _child_environment() -> dict:
    """This environment, with this Python's own library folder first on LD_LIBRARY_PATH.

    Embedded in R, LD_LIBRARY_PATH lists R's folders and the system's (/usr/lib/...), which
    can hold another build of libpython: the child would load it and fail (e.g. ``_ssl``).
    """
    env = dict(os.environ)
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir and env.get("LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = os.pathsep.join([libdir, env["LD_LIBRARY_PATH"]])
    return env


def _free_port(host) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _wait_until_serving(process, host, port, log):
    deadline = time.monotonic() + START_TIMEOUT
    address = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app stopped at start (exit {process.returncode}): "
                               f"{log.read_text().strip()[-2000:]}")
        try:
            socket.create_connection((address, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError(f"the app did not listen on {host}:{port} within {START_TIMEOUT} s")


def _serve(payload: str) -> None:
    """Child process: read (and delete) the pickled arguments, then serve."""
    from .factory import run_app

    path = Path(payload)
    with open(path, "rb") as handle:
        arguments = pickle.load(handle)
    path.unlink()
    run_app(**arguments, launch_browser=False)


if __name__ == "__main__":
    _serve(sys.argv[1])

__all__ = ["BackgroundApp", "start_app"]
