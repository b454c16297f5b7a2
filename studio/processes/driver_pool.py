"""Warm drivers: a run's driver process, started before the run, so Run answers in about a second.

A run's driver starts in seconds: Django and the engine import, the Spark session's JVM
starts, the executors' Python daemon forks its workers. Flink answers this with a session
cluster that all jobs share; here each run keeps a driver process and a Spark application
of its own (a failing or fenced run takes nothing else with it), and only the waiting moves
out of the user's way: each Celery worker keeps ``settings.WARM_DRIVERS`` driver processes
(``python -m studio.runs.driver --warm``) that did all of that already and wait on their
standard input. A launch takes one (:meth:`DriverPool.take`), hands it the run id and its
fencing token, and a replacement starts in the background. A warm driver serves one run
and exits with it; when the worker goes away its warm drivers read the end of their input
and exit too.

A warm driver's Spark session offers ``settings.WARM_DRIVER_SLOTS`` slots; a run needing
more stops it and starts one of its own size (as a cold driver would).

Thread-safe: launches run on the worker's task threads; the pool's state is under a lock.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)


@dataclass
class WarmDriver:
    """A driver process waiting for its run; its output goes to ``log_path`` until it has one."""

    process: subprocess.Popen
    log_path: Path

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def hand_over(self, run_id: int, token: str, run_log: Path) -> subprocess.Popen:
        """Give this driver its run: its log becomes the run's, the run id and token go to its input."""
        os.replace(self.log_path, run_log)
        self.process.stdin.write(f"{run_id} {token}\n".encode())
        self.process.stdin.close()
        return self.process


class DriverPool:
    """Up to ``size`` warm drivers of one Celery worker process."""

    def __init__(self, size: int):
        self.size = size
        self._lock = threading.Lock()
        self._ready: list[WarmDriver] = []  # guarded by: self._lock
        self._closed = False  # guarded by: self._lock

    def take(self) -> WarmDriver | None:
        """A warm driver for a run (it may still be warming up), or None: start a cold one.

        A replacement starts in the background either way."""
        with self._lock:
            while self._ready:
                driver = self._ready.pop(0)
                if driver.alive:
                    break
                logger.warning("warm driver %s had exited with %s; see %s", driver.process.pid,
                               driver.process.returncode, driver.log_path)
            else:
                driver = None
        self.fill_in_background()
        return driver

    def fill_in_background(self) -> None:
        threading.Thread(target=self.fill, name="warm-drivers", daemon=True).start()

    def fill(self) -> None:
        """Start warm drivers until ``size`` are ready."""
        while True:
            with self._lock:
                if self._closed or len(self._ready) >= self.size:
                    return
                try:
                    self._ready.append(self._start())
                except OSError:
                    logger.exception("could not start a warm driver")
                    return

    def close(self) -> None:
        """End the waiting drivers (the worker shuts down): their input ends, they exit."""
        with self._lock:
            self._closed = True
            drivers, self._ready = self._ready, []
        for driver in drivers:
            try:
                driver.process.stdin.close()
                driver.process.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                driver.process.kill()

    def _start(self) -> WarmDriver:
        settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
        log_path = settings.RUN_LOG_DIR / f"warm-driver-{uuid.uuid4().hex[:12]}.log"
        env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR), "REDIS_URL": settings.REDIS_URL}
        env.pop("STUDIO_DRIVER_TOKEN", None)
        with open(log_path, "ab") as log:
            process = subprocess.Popen([sys.executable, "-m", "studio.runs.driver", "--warm"], cwd=settings.BASE_DIR,
                                       env=env, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)
        return WarmDriver(process, log_path)


_pool: DriverPool | None = None
_pool_lock = threading.Lock()


def driver_pool() -> DriverPool:
    """This worker process's pool (created at first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = DriverPool(settings.WARM_DRIVERS)
        return _pool
