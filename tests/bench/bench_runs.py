"""``make bench-runs``: many small runs at once, in the shared session and each in a driver of its own.

The whole studio as ``make up`` starts it (``studio.processes.supervisor``: embedded Redis, SQLite, the
Celery worker, the session driver, the web server) in a fresh data directory. A client
(``studio.cli.Studio``, token auth) starts ``BENCH_RUNS`` small streaming runs at once (datagen at
100 records/s → map → keyed sum → collect, 1 s checkpoints: issue 40's pipeline), first in the shared
session, then -- their pipelines marked isolated -- ``BENCH_OWN_DRIVER_RUNS`` of them each in a driver
and Spark application of its own, and measures for each mode:

- ``runs_running``: runs RUNNING once every run started or ``START_TIMEOUT_S`` passed;
- ``mem_mb_per_run``: the studio's memory (PSS, so pages the forked slot processes share count once)
  with the runs running, less before them, per run: the marginal cost of a run;
- ``start_s_p50`` / ``start_s_p99``: from the POST that started a run to its RUNNING status (the run's
  own status history; the client and studio share the clock);
- ``start_phases_s_p50``: where the start went (``start_phases_s``: the POST, queued until claimed (by the
  session driver for a run its start handed straight to it, else a Celery worker), handed to the driver,
  the job to RUNNING), each phase's median;
- ``later_start_s_p50`` / ``later_start_s_max`` (session only): ``BENCH_LATER_RUNS`` more runs started one
  at a time while the others run, each to RUNNING (the issue's start "with 50 already running");
- ``rest_p99_ms_under_runs``: GET /api/runs/<id> and GET /api/runs, round robin, while the runs run (and
  ``rest_p50_ms_under_runs``; ``rest_p99_ms_run_list`` and ``rest_p99_ms_one_run``: each kind's own);
- ``cpu_ms_per_s_per_run``: the CPU the studio's processes use a second (user and system, ``CPU_WINDOW_S``)
  with the runs running, less with none, per run: what a live run costs the machine while it runs (on
  2 cores, 100 runs fit below 20); ``cpu_ms_per_s_by_process``: the running figure by kind of process
  (``session_driver``, ``slots``: the Spark Python workers, ``jvm``, ``web``, ``celery``, ``redis``, ...).

Session figures are the top-level keys; the own-driver ones are prefixed ``own_driver_``
(``BENCH_OWN_DRIVER_RUNS=0``: none). ``later_start_phases_s_p50``: the later runs' phases.

``BENCH_DATABASE=postgres``: the studio on a PostgreSQL server the benchmark starts (``tests.postgres_server``,
as the tests do) instead of SQLite, for many live runs; the figures then carry ``"database": "postgres"``.
Each mode's figures so far go to standard error as they are measured (a run stopped at its time limit
still says them); ``BENCH_REST_REQUESTS`` sets how many GETs measure the REST latency.
``load_average_1m`` is the machine's load when the runs ran: on a shared 2-core machine the start
figures say as much about the neighbours as about the studio. ``--smoke``: two runs and one.
"""
from __future__ import annotations

import json
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

import psutil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.children import start_dying_with_us, stop_group, stop_on_signals  # noqa: E402

SMOKE = "--smoke" in sys.argv or os.environ.get("BENCH_SMOKE") == "1"
RUNS = int(os.environ.get("BENCH_RUNS", "2" if SMOKE else "12"))
LATER_RUNS = int(os.environ.get("BENCH_LATER_RUNS", "1" if SMOKE else "5"))
"""Runs started one at a time once the others run (the issue's start "with 50 already running")."""
OWN_DRIVER_RUNS = int(os.environ.get("BENCH_OWN_DRIVER_RUNS", "1" if SMOKE else "4"))
DATABASE = os.environ.get("BENCH_DATABASE", "sqlite")
"""``sqlite`` (``make up``'s default) or ``postgres`` (a server of the benchmark's own)."""
REST_REQUESTS = int(os.environ.get("BENCH_REST_REQUESTS", "40" if SMOKE else "400"))
CPU_WINDOW_S = 2.0 if SMOKE else 10.0
START_TIMEOUT_S = 600
POLL_S = 0.25
PASSWORD = "bench-runs"
ENDED = ("FINISHED", "CANCELED", "FAILED")
LOG = open(os.environ["BENCH_STUDIO_LOG"], "ab") if os.environ.get("BENCH_STUDIO_LOG") else subprocess.DEVNULL
"""Where the studio's own output goes (``BENCH_STUDIO_LOG``: a file; default nowhere)."""


def small_pipeline(name: str) -> dict:
    return {"format": 1, "name": name, "parallelism": 1, "checkpointing": {"interval_ms": 1000},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 100}},
                      {"id": "pair", "type": "transform.map",
                       "params": {"expression": '{"user": x % 10, "amount": x}'}},
                      {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": 'x["amount"]'}},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 100}}],
            "edges": [{"id": "e1", "from": "gen", "to": "pair"},
                      {"id": "e2", "from": "pair", "to": "sum", "partitioning": "hash", "key": 'x["user"]'},
                      {"id": "e3", "from": "sum", "to": "out"}]}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def studio_pss_mb(launcher_pid: int) -> float:
    """Proportional set size of every process of the studio (the launcher's tree), in MB."""
    total = 0
    for process in psutil.Process(launcher_pid).children(recursive=True):
        try:
            total += process.memory_full_info().pss
        except psutil.Error:
            pass
    return total / 2**20


PROCESS_KINDS = (("SparkSubmit", "jvm"), ("studio.runs.session_driver", "session_driver"), ("pyspark.daemon", "slots"),
                 ("spark_daemon", "slots"), ("pyspark.worker", "slots"), ("celery", "celery"),
                 ("uvicorn", "web"), ("studio.asgi", "web"), ("redis", "redis"), ("studio.runs.driver", "own_drivers"),
                 ("postgres", "database"), ("budget", "budget_workers"), ("multiprocessing", "web"))


def process_kind(process: psutil.Process) -> str:
    """The first kind whose marker is in the process's command line (the JVM's names the slots' daemon module)."""
    try:
        command = " ".join(process.cmdline())
    except psutil.Error:
        return "other"
    return next((kind for marker, kind in PROCESS_KINDS if marker in command), "other")


def studio_cpu_ms_per_s(launcher_pid: int, seconds: float) -> tuple[float, dict[str, float]]:
    """CPU (user + system) of the studio's processes over ``seconds``, in ms a second: in all, and by kind."""
    processes = [psutil.Process(launcher_pid), *psutil.Process(launcher_pid).children(recursive=True)]
    first = {}
    for process in processes:
        try:
            first[process.pid] = (process, sum(process.cpu_times()[:4]))
        except psutil.Error:
            pass
    began = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - began
    by_kind: dict[str, float] = {}
    for process, cpu in first.values():
        try:
            used = sum(process.cpu_times()[:4]) - cpu
        except psutil.Error:
            continue
        kind = process_kind(process)
        by_kind[kind] = by_kind.get(kind, 0.0) + used * 1000 / elapsed
    return sum(by_kind.values()), {kind: round(ms) for kind, ms in sorted(by_kind.items(), key=lambda kv: -kv[1])}


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def start_at_once(studio, pipeline_ids: list[int]) -> dict[int, float]:
    """POST every run from a thread of its own, together; {run id: epoch seconds of its POST}."""
    started: dict[int, float] = {}
    lock = threading.Lock()
    go = threading.Barrier(len(pipeline_ids))

    def start(pipeline_id: int) -> None:
        go.wait()
        sent = time.time()
        run_id = studio.request("POST", f"pipelines/{pipeline_id}/runs", {})["id"]
        with lock:
            started[run_id] = sent

    threads = [threading.Thread(target=start, args=(pipeline_id,)) for pipeline_id in pipeline_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return started


def wait_until_started(studio, started: dict[int, float]) -> dict[int, dict]:
    """Every run once it runs or ended, or as it is after START_TIMEOUT_S."""
    deadline = time.monotonic() + START_TIMEOUT_S
    runs = {}
    while True:
        runs = {run_id: studio.request("GET", f"runs/{run_id}") for run_id in started}
        if all(run["status"] in ("RUNNING", *ENDED) for run in runs.values()) or time.monotonic() > deadline:
            return runs
        time.sleep(POLL_S)


def seconds_to_running(run: dict, sent: float) -> float | None:
    for change in run["status_history"]:
        if change["status"] == "RUNNING":
            return change["ts"] / 1000 - sent
    return None


def start_phases_s(studio, run: dict, sent: float) -> dict[str, float] | None:
    """Where a run's start went: ``post`` (the POST to its CREATED status), ``queued`` (to its claim:
    SCHEDULING, by the session driver or a Celery worker), ``handed`` (to its driver's ``startup`` event: placement, hand-over, the driver
    taking it), ``job`` (to RUNNING)."""
    created = run["status_history"][0]["ts"] / 1000
    scheduling = next((c["ts"] / 1000 for c in run["status_history"] if c["status"] == "SCHEDULING"), None)
    running = next((c["ts"] / 1000 for c in run["status_history"] if c["status"] == "RUNNING"), None)
    events = studio.request("GET", f"runs/{run['id']}/events")
    startup = next((e["ts"] / 1000 for e in events if e["type"] == "startup"), None)
    if None in (scheduling, running, startup):
        return None
    return {"post": created - sent, "queued": scheduling - created, "handed": startup - scheduling, "job": running - startup}


def rest_latencies_ms(studio, run_ids: list[int]) -> tuple[list[float], list[float]]:
    """Milliseconds of each GET /api/runs (the list) and of each GET /api/runs/<id> (one run), asked in turn."""
    lists, ones = [], []
    for index in range(REST_REQUESTS):
        path = f"runs/{run_ids[index % len(run_ids)]}" if index % 2 else "runs"
        began = time.perf_counter()
        studio.request("GET", path)
        (ones if index % 2 else lists).append((time.perf_counter() - began) * 1000)
    return lists, ones


def cancel_all(studio, run_ids: list[int]) -> None:
    from studio.cli import StudioError

    for run_id in run_ids:
        try:
            studio.request("POST", f"runs/{run_id}/cancel")
        except StudioError as error:
            if error.status != 409:  # 409: it ended already (its failure is printed with the figures)
                raise
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if all(studio.request("GET", f"runs/{run_id}")["status"] in ENDED for run_id in run_ids):
            return
        time.sleep(POLL_S)


def settle(launcher_pid: int, seconds: float = 5.0) -> float:
    """The studio's PSS after ``seconds`` of letting started processes settle."""
    time.sleep(seconds)
    return studio_pss_mb(launcher_pid)


def start_one_by_one(studio, pipeline_ids: list[int]) -> tuple[list[float], list[dict]]:
    """Start each run once the one before it runs (the others still running); seconds to RUNNING of each,
    and the phases of each start."""
    starts, phases = [], []
    for pipeline_id in pipeline_ids:
        started = start_at_once(studio, [pipeline_id])
        runs = wait_until_started(studio, started)
        starts += [s for run_id, run in runs.items() if (s := seconds_to_running(run, started[run_id])) is not None]
        phases += [p for run_id, run in runs.items() if (p := start_phases_s(studio, run, started[run_id]))]
        print(f"later run {list(runs)}: {[run['status'] for run in runs.values()]} {starts[-1:]} {phases[-1:]}",
              file=sys.stderr, flush=True)
        cancel_all(studio, list(started))
    return starts, phases


def phase_medians(phases: list[dict]) -> dict | None:
    return {phase: round(percentile([p[phase] for p in phases], 0.5), 2)
            for phase in ("post", "queued", "handed", "job")} if phases else None


def measure_mode(studio, launcher_pid: int, pipeline_ids: list[int], expected_placement: str,
                 later_ids: list[int] = ()) -> dict:
    before = settle(launcher_pid)
    idle_cpu, _ = studio_cpu_ms_per_s(launcher_pid, CPU_WINDOW_S)
    started = start_at_once(studio, pipeline_ids)
    runs = wait_until_started(studio, started)
    misplaced = [run_id for run_id, run in runs.items() if run["placement"] != expected_placement]
    if misplaced:
        raise RuntimeError(f"runs {misplaced} ran in {[runs[r]['placement'] for r in misplaced]}, not "
                           f"{expected_placement}: {[runs[r]['placement_reason'] for r in misplaced]}")
    running = [run_id for run_id, run in runs.items() if run["status"] == "RUNNING"]
    for run_id, run in runs.items():
        if run["status"] != "RUNNING":
            print(f"run {run_id} ({expected_placement}): {run['status']} {run.get('failure_cause') or ''}",
                  file=sys.stderr)
    starts = [s for s in (seconds_to_running(runs[run_id], started[run_id]) for run_id in running) if s is not None]
    phases = [p for p in (start_phases_s(studio, runs[run_id], started[run_id]) for run_id in running) if p]
    load = os.getloadavg()[0]
    figures = {"runs": len(pipeline_ids), "runs_running": len(running),
               "start_s_p50": round(percentile(starts, 0.5), 2) if starts else None,
               "start_s_p99": round(percentile(starts, 0.99), 2) if starts else None,
               "start_phases_s_p50": phase_medians(phases), "load_average_1m": round(load, 2)}
    progress(expected_placement, figures)
    after = settle(launcher_pid)
    live_cpu, cpu_by_kind = studio_cpu_ms_per_s(launcher_pid, CPU_WINDOW_S)
    figures.update({"mem_mb_per_run": round((after - before) / len(pipeline_ids), 1),
                    "cpu_ms_per_s_per_run": round((live_cpu - idle_cpu) / len(pipeline_ids), 1),
                    "cpu_ms_per_s_by_process": cpu_by_kind})
    progress(expected_placement, figures)
    lists, ones = rest_latencies_ms(studio, list(started))
    figures.update({"rest_p99_ms_under_runs": round(percentile(lists + ones, 0.99), 1),
                    "rest_p50_ms_under_runs": round(percentile(lists + ones, 0.5), 1),
                    "rest_p99_ms_run_list": round(percentile(lists, 0.99), 1),
                    "rest_p99_ms_one_run": round(percentile(ones, 0.99), 1)})
    progress(expected_placement, figures)
    later, later_phases = start_one_by_one(studio, list(later_ids))
    cancel_all(studio, list(started))
    return {**figures,
            **({"later_runs": len(later), "later_start_s_p50": round(percentile(later, 0.5), 2),
                "later_start_s_max": round(max(later), 2), "later_start_phases_s_p50": phase_medians(later_phases)}
               if later else {})}


def progress(mode: str, figures: dict) -> None:
    """The figures so far, on standard error: a run stopped at its time limit still says what it measured."""
    print(f"{mode} so far: {json.dumps({**figures, 'load_now': round(os.getloadavg()[0], 2)})}", file=sys.stderr,
          flush=True)


def login(studio, launcher: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S  # a busy machine starts the studio and its JVMs slowly
    while True:
        try:
            studio.request("POST", "auth/login", {"username": "admin", "password": PASSWORD})
            break
        except OSError:
            if time.monotonic() > deadline or launcher.poll() is not None:
                raise RuntimeError(f"the studio did not start (launcher exit code {launcher.poll()})")
            time.sleep(0.5)
    studio.token = studio.request("POST", "auth/tokens", {"name": "bench"})["key"]
    while not studio.request("GET", "session")["serving"]:
        if time.monotonic() > deadline:
            raise RuntimeError("the session driver did not serve")
        time.sleep(0.5)


def patient(studio):
    """``studio`` whose requests the studio shed under load (503) are asked again, as the frontend does."""
    from studio.cli import StudioError

    ask = studio.request

    def request(*args, **kwargs):
        for _ in range(60):
            try:
                return ask(*args, **kwargs)
            except StudioError as error:
                if error.status != 503:
                    raise
                time.sleep(0.5)
        return ask(*args, **kwargs)

    studio.request = request
    return studio


def measure() -> dict:
    sys.path.insert(0, str(ROOT))
    from studio.cli import Studio

    data_dir = tempfile.mkdtemp(prefix="bench-runs-")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    database = None
    if DATABASE == "postgres":
        from tests.postgres_server import PostgresServer

        database = PostgresServer(max_connections=400).start()
        env["DATABASE_URL"] = database.create_database("bench_runs")
    env.update(STUDIO_DATA_DIR=data_dir, STUDIO_PORT=str(port), STUDIO_ADMIN_PASSWORD=PASSWORD, PYTHONPATH=str(ROOT),
               STUDIO_SESSION_MODE="1", STUDIO_SESSION_SLOTS=str(max(RUNS + 1, 4)), STUDIO_START_TIMEOUT_S="300")
    # its own process group, stopped in order below; it dies with the benchmark even when no finally runs
    launcher = start_dying_with_us([sys.executable, "-m", "studio.processes.supervisor"], cwd=ROOT, env=env,
                                   stdout=LOG, stderr=subprocess.STDOUT)
    try:
        studio = patient(Studio(f"http://127.0.0.1:{port}", timeout=60))
        login(studio, launcher)
        pipelines = [studio.request("POST", "pipelines", {"name": f"small-{i}", "definition": small_pipeline(
            f"small-{i}")})["id"] for i in range(RUNS + LATER_RUNS)]
        session = measure_mode(studio, launcher.pid, pipelines[:RUNS], "session", pipelines[RUNS:])
        isolated = pipelines[:OWN_DRIVER_RUNS]
        for pipeline_id in isolated:
            studio.request("POST", f"pipelines/{pipeline_id}/isolation", {"isolated": True})
        own = measure_mode(studio, launcher.pid, isolated, "own_driver") if isolated else {}
    finally:
        stop_group(launcher)  # what Ctrl-C does (also on `timeout`'s SIGTERM: stop_on_signals)
        shutil.rmtree(data_dir, ignore_errors=True)
        if database is not None:
            database.stop()
    return {**session, "database": DATABASE, **{f"own_driver_{name}": value for name, value in own.items()}}


if __name__ == "__main__":
    stop_on_signals()
    figures = measure()
    print(json.dumps(figures))
