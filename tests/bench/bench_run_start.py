"""``make bench-studio``'s start-and-cancel phase: how long a user waits for a run, and for a cancel.

The whole studio as ``make up`` starts it (``studio.processes.supervisor``: embedded Redis, SQLite, the
Celery worker, the web server) in a fresh data directory; every run is a real driver
process on local Spark. A client (``studio.cli.Studio``, token auth) plays the browser:

- ``click_to_running_s``: from POST /api/pipelines/<id>/runs (the Run button's request) to
  GET /api/runs/<id> answering RUNNING (polled every ``POLL_S``); the median of ``ROUNDS``;
- ``cancel_s``: from POST /api/runs/<id>/cancel on a RUNNING run to the run's end (CANCELED);
- ``cancel_scheduling_s``: the same for a run cancelled as soon as it is SCHEDULING;
- ``*_stuck``: cancels after which the run had not ended within ``CANCEL_TIMEOUT_S``.

Each run gets a warm driver (``studio.processes.driver_pool``): a driver process that started its Spark
session before the click. Before each click the bench waits until the worker's replacement
driver is ready (its log says so), as it is for a user who started the previous run more than
a few seconds ago; ``cold_start_s`` is the first run's start right after the studio came up,
before its warm driver was ready. Targets (issue 19): click_to_running_s ≤ 3, cancel_s ≤ 2,
cancel_scheduling_s ≤ 2.
"""
from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("BENCH_START_ROUNDS", "1" if os.environ.get("BENCH_SMOKE") == "1" else "3"))
POLL_S = 0.05
START_TIMEOUT_S = 240
CANCEL_TIMEOUT_S = 60
PASSWORD = "bench-run-start"
ENDED = ("FINISHED", "CANCELED", "FAILED")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(studio, run_id: int, done, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        run = studio.request("GET", f"runs/{run_id}")
        if done(run["status"]):
            return run
        if time.monotonic() > deadline:
            raise TimeoutError(f"run {run_id} still {run['status']} after {timeout:.0f} s")
        time.sleep(POLL_S)


def _wait_for_warm_driver(data_dir: str, timeout: float = 120) -> None:
    """Until a warm driver of the worker waits for its run (its own log says it is ready)."""
    deadline = time.monotonic() + timeout
    while not any("warm driver ready" in log.read_text(errors="replace")
                  for log in (Path(data_dir) / "runs").glob("warm-driver-*.log")):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no warm driver was ready after {timeout:.0f} s")
        time.sleep(POLL_S)


def _start(studio, pipeline_id: int) -> tuple[int, float]:
    clicked = time.perf_counter()
    run_id = studio.request("POST", f"pipelines/{pipeline_id}/runs", {})["id"]
    return run_id, clicked


def _cancel(studio, run_id: int) -> float | None:
    """Seconds from the cancel request to CANCELED; None when the run had not ended after CANCEL_TIMEOUT_S."""
    sent = time.perf_counter()
    studio.request("POST", f"runs/{run_id}/cancel")
    try:
        ended = _wait_for(studio, run_id, lambda status: status in ENDED, CANCEL_TIMEOUT_S)
    except TimeoutError:
        return None
    if ended["status"] != "CANCELED":
        raise RuntimeError(f"run {run_id} ended {ended['status']}, not CANCELED: {ended.get('failure_cause')}")
    return time.perf_counter() - sent


def measure() -> dict:
    """Start the studio, measure ROUNDS starts and cancels, stop it; the figures as a dict."""
    sys.path.insert(0, str(ROOT))
    from studio.cli import Studio
    from tests.bench.children import start_dying_with_us, stop_group
    from tests.support import simple_pipeline

    data_dir = tempfile.mkdtemp(prefix="bench-run-start-")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update(STUDIO_DATA_DIR=data_dir, STUDIO_PORT=str(port), STUDIO_ADMIN_PASSWORD=PASSWORD, PYTHONPATH=str(ROOT))
    launcher = start_dying_with_us([sys.executable, "-m", "studio.processes.supervisor"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # even if we are killed
    try:
        studio = Studio(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 180  # a busy machine starts the studio's dozen processes slowly
        while True:
            try:
                studio.request("POST", "auth/login", {"username": "admin", "password": PASSWORD})
                break
            except OSError:
                if time.monotonic() > deadline or launcher.poll() is not None:
                    raise RuntimeError("the studio did not start")
                time.sleep(0.5)
        studio.token = studio.request("POST", "auth/tokens", {"name": "bench"})["key"]
        definition = simple_pipeline(count=None, rate=200, interval_ms=1000, name="bench-start")
        pipeline_id = studio.request("POST", "pipelines", {"name": "bench-start", "definition": definition})["id"]
        run_id, clicked = _start(studio, pipeline_id)
        _wait_for(studio, run_id, lambda status: status in ("RUNNING", *ENDED), START_TIMEOUT_S)
        cold_start = time.perf_counter() - clicked
        _cancel(studio, run_id)
        starts, cancels, scheduling_cancels = [], [], []
        for _ in range(ROUNDS):
            _wait_for_warm_driver(data_dir)
            run_id, clicked = _start(studio, pipeline_id)
            started = _wait_for(studio, run_id, lambda status: status in ("RUNNING", *ENDED), START_TIMEOUT_S)
            if started["status"] != "RUNNING":
                raise RuntimeError(f"run {run_id} ended {started['status']} before RUNNING: {started['failure_cause']}")
            starts.append(time.perf_counter() - clicked)
            cancels.append(_cancel(studio, run_id))
            _wait_for_warm_driver(data_dir)
            run_id, _ = _start(studio, pipeline_id)
            _wait_for(studio, run_id, lambda status: status not in ("CREATED",), 60)
            scheduling_cancels.append(_cancel(studio, run_id))
    finally:
        stop_group(launcher, grace_s=60)  # what Ctrl-C does: the launcher stops its drivers too
        shutil.rmtree(data_dir, ignore_errors=True)
    return {
        "click_to_running_s": round(statistics.median(starts), 2),
        "click_to_running_max_s": round(max(starts), 2),
        **_cancel_figures("cancel", cancels),
        **_cancel_figures("cancel_scheduling", scheduling_cancels),
        "cold_start_s": round(cold_start, 2),
        "start_cancel_rounds": ROUNDS,
    }


def _cancel_figures(name: str, seconds: list[float | None]) -> dict:
    """Median and max of the cancels that ended; ``<name>_stuck``: how many had not after CANCEL_TIMEOUT_S."""
    ended = [value for value in seconds if value is not None]
    return {f"{name}_s": round(statistics.median(ended), 2) if ended else None,
            f"{name}_max_s": round(max(ended), 2) if ended else None,
            f"{name}_stuck": len(seconds) - len(ended)}


if __name__ == "__main__":
    import json

    print(json.dumps(measure()))
