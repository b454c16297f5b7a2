"""Soak: one run checkpointing every 100 ms at parallelism 2, for ten minutes (or hours), while its
history is read and retained as the studio does.

Run with ``make bench-soak`` (``.venv/bin/python tests/bench/bench_soak.py [--minutes M | --hours H]
[--quick]``). In a fresh data directory (SQLite, the embedded Redis) it creates a pipeline
``datagen (RATE records/s) -> map -> collect`` at parallelism 2 with checkpoints every 100 ms, and
starts the run's real driver (``python -m studio.runs.driver <id>``, local Spark), as the launch
task does. While the run goes on:

- the retention loop a Celery worker runs (``studio.retention.loop.RetentionLoop``, its interval
  from the settings) runs in this process, as it would beside the studio;
- a reader asks ``GET /api/runs/<id>/checkpoints`` (the run page's checkpoint history and summary)
  ``READS_PER_SECOND`` times a second through Django's test client (the view's cost, no HTTP
  server; ``READ_WARMUP`` unmeasured requests first), and ``GET /api/runs/<id>/events?after=<seq>``
  as a reconnecting page does. Each request's wall time, and its CPU time (the reading thread's:
  the view and SQLite run in it), which a loaded machine disturbs much less;
- every ``SAMPLE_S`` the size of the database (the SQLite file with its write-ahead log) and the
  driver's resident memory (its Python process; the JVM beside it is reported for context) are
  sampled.

Figures: the growth of the database and of the driver's memory from the end of the warm-up (the
first fifth of the run: two minutes of ten) to the end, the checkpoints endpoint's p50/p99 in the
first and in the last minute (wall and CPU), checkpoints completed, events and checkpoint rows stored at the end.
The last line is one JSON object with ``db_mb_growth_after_warmup`` (goal <= 20 MB over the last 8
of 10 minutes), ``checkpoints_p99_ms_first_minute``, ``checkpoints_p99_ms_last_minute`` (goal: the
last within 20% of the first) and ``driver_rss_mb_growth`` (goal <= 20 MB). ``--quick`` runs two
minutes (warm-up 24 s), to try things out; its figures are not the goal's. Figures are printed,
never asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARALLELISM = 2
INTERVAL_MS = 100
RATE = 2000
READS_PER_SECOND = 2
READ_WARMUP = 20
SAMPLE_S = 5.0
WARMUP_SHARE = 0.2


def percentile(values: list[float], percent: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(percent / 100 * len(ordered) + 0.5) - 1))]


def setup_django(data_dir: str) -> None:
    os.environ["STUDIO_DATA_DIR"] = data_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["STUDIO_CELERY_QUEUE"] = f"soak-{os.getpid()}"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed() -> tuple[int, str]:
    from django.contrib.auth import get_user_model

    from studio.models import ApiToken, Pipeline, PipelineVersion, Run
    from studio.runs.events import set_status
    from tests.support import simple_pipeline

    user = get_user_model().objects.create_user("soak", password="soak")
    _, key = ApiToken.issue(user, "soak")
    pipeline = Pipeline.objects.create(name="soak", owner=user)
    definition = simple_pipeline(count=None, rate=RATE, parallelism=PARALLELISM, interval_ms=INTERVAL_MS, name="soak")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=definition)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user)
    set_status(run.id, "CREATED")
    set_status(run.id, "SCHEDULING")
    return run.id, key


def database_bytes() -> int:
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            return int(cursor.fetchone()[0])
    name = Path(settings.DATABASES["default"]["NAME"])
    return sum(path.stat().st_size for path in (name, Path(f"{name}-wal")) if path.exists())


def process_rss(pid: int) -> tuple[int, int]:
    """(the driver's Python process, its JVM children) resident bytes."""
    import psutil

    try:
        driver = psutil.Process(pid)
        own = driver.memory_info().rss
        jvm = sum(child.memory_info().rss for child in driver.children(recursive=True)
                  if "java" in (child.name() or ""))
        return own, jvm
    except psutil.NoSuchProcess:
        return 0, 0


class Reader(threading.Thread):
    """Reads the run's checkpoints (and its events, as a page catching up) READS_PER_SECOND times a second."""

    def __init__(self, run_id: int, key: str, stop: threading.Event):
        super().__init__(daemon=True, name="reader")
        self.run_id, self.key, self.stop = run_id, key, stop
        self.timings: list[tuple[float, float, float]] = []  # (monotonic moment, wall ms, CPU ms)
        self.errors = 0
        self.last_seq = 0
        self.ready = threading.Event()

    def run(self) -> None:
        from django.db import close_old_connections
        from django.test import Client

        client = Client(HTTP_AUTHORIZATION=f"Token {self.key}", HTTP_ACCEPT="application/json", HTTP_HOST="localhost")
        for _ in range(READ_WARMUP):  # imports, URL resolution, first queries: not the endpoint's cost
            client.get(f"/api/runs/{self.run_id}/checkpoints")
        self.ready.set()
        period = 1.0 / READS_PER_SECOND
        while not self.stop.wait(period):
            started, cpu = time.perf_counter(), time.thread_time()
            response = client.get(f"/api/runs/{self.run_id}/checkpoints")
            elapsed, cpu_ms = (time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000
            if response.status_code != 200:
                self.errors += 1
                continue
            self.timings.append((time.monotonic(), elapsed, cpu_ms))
            events = client.get(f"/api/runs/{self.run_id}/events?after={self.last_seq}")
            if events.status_code == 200 and events.json():
                self.last_seq = events.json()[-1]["seq"]
            close_old_connections()


def start_retention():
    """The retention loop a Celery worker runs, when this checkout has one (None before it existed)."""
    try:
        from studio.retention.loop import RetentionLoop
    except ImportError:
        return None
    return RetentionLoop().start()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--hours", type=float, default=None)
    parser.add_argument("--quick", action="store_true", help="two minutes, to try things out")
    parser.add_argument("--smoke", action="store_true", help="ten seconds, figures meaningless (make test)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the driver is stopped on the way out
    duration_s = 10.0 if args.smoke else 120.0 if args.quick else (
        args.hours * 3600 if args.hours else args.minutes * 60)
    warmup_s = duration_s * WARMUP_SHARE
    data_dir = tempfile.mkdtemp(prefix="studio-soak-")
    driver = None
    stop = threading.Event()
    try:
        setup_django(data_dir)
        from tests.bench.children import start_dying_with_us

        run_id, key = seed()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        log = open(Path(data_dir) / "driver.log", "wb")
        # SIGTERM (a cancel) to the driver even when this benchmark is SIGKILLed and its finally never runs
        driver = start_dying_with_us([sys.executable, "-m", "studio.runs.driver", str(run_id)], signal.SIGTERM,
                                     cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        from studio.models import Checkpoint, Run, RunEvent

        deadline = time.monotonic() + 120
        while Run.objects.get(pk=run_id).status != "RUNNING":
            if time.monotonic() > deadline or driver.poll() is not None:
                raise RuntimeError(f"the run did not reach RUNNING; see {data_dir}/driver.log")
            time.sleep(0.5)
        while not Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").exists():
            if time.monotonic() > deadline:
                raise RuntimeError("no checkpoint completed")
            time.sleep(0.2)
        retention = start_retention()
        reader = Reader(run_id, key, stop)
        reader.start()
        reader.ready.wait(120)
        started = time.monotonic()
        samples = []  # (seconds since start, db bytes, driver rss, jvm rss)
        while True:
            elapsed = time.monotonic() - started
            samples.append((elapsed, database_bytes(), *process_rss(driver.pid)))
            if elapsed >= duration_s or driver.poll() is not None:
                break
            time.sleep(min(SAMPLE_S, max(0.0, duration_s - elapsed)))
        if driver.poll() is not None:
            raise RuntimeError(f"the driver ended early; see {data_dir}/driver.log")
        stop.set()
        reader.join(10)
        if retention is not None:
            retention.stop()
        after_warmup = min(samples, key=lambda sample: abs(sample[0] - warmup_s))
        end = samples[-1]
        first = [timing for timing in reader.timings if timing[0] - started <= 60]
        last = [timing for timing in reader.timings if timing[0] - started >= end[0] - 60]
        wall = {"first": [timing[1] for timing in first], "last": [timing[1] for timing in last]}
        cpu = {"first": [timing[2] for timing in first], "last": [timing[2] for timing in last]}
        per_minute = [(round(moment / 60, 1), round(db / 2 ** 20, 1), round(rss / 2 ** 20, 1))
                      for moment, db, rss, _ in samples[::max(1, int(60 / SAMPLE_S))]]
        completed = Checkpoint.objects.filter(run_id=run_id).order_by("-checkpoint_id").values_list(
            "checkpoint_id", flat=True).first() or 0
        figures = {
            "minutes": round(end[0] / 60, 2),
            "checkpoints_taken": completed,
            "checkpoint_rows_at_end": Checkpoint.objects.filter(run_id=run_id).count(),
            "event_rows_at_end": RunEvent.objects.filter(run_id=run_id).count(),
            "db_mb_at_warmup": round(after_warmup[1] / 2 ** 20, 2),
            "db_mb_at_end": round(end[1] / 2 ** 20, 2),
            "db_mb_growth_after_warmup": round((end[1] - after_warmup[1]) / 2 ** 20, 2),
            "warmup_minutes": round(after_warmup[0] / 60, 2),
            "checkpoints_p50_ms_first_minute": _round(percentile(wall["first"], 50)),
            "checkpoints_p99_ms_first_minute": _round(percentile(wall["first"], 99)),
            "checkpoints_p50_ms_last_minute": _round(percentile(wall["last"], 50)),
            "checkpoints_p99_ms_last_minute": _round(percentile(wall["last"], 99)),
            "checkpoints_cpu_p50_ms_first_minute": _round(percentile(cpu["first"], 50)),
            "checkpoints_cpu_p99_ms_first_minute": _round(percentile(cpu["first"], 99)),
            "checkpoints_cpu_p50_ms_last_minute": _round(percentile(cpu["last"], 50)),
            "checkpoints_cpu_p99_ms_last_minute": _round(percentile(cpu["last"], 99)),
            "reads": len(reader.timings), "read_errors": reader.errors,
            "driver_rss_mb_at_warmup": round(after_warmup[2] / 2 ** 20, 1),
            "driver_rss_mb_at_end": round(end[2] / 2 ** 20, 1),
            "driver_rss_mb_growth": round((end[2] - after_warmup[2]) / 2 ** 20, 1),
            "jvm_rss_mb_growth": round((end[3] - after_warmup[3]) / 2 ** 20, 1),
            "retention": retention is not None,
            "quick": bool(args.quick),
            "load_average": round(os.getloadavg()[0], 2),
        }
        print("minute  db MB  driver RSS MB")
        for minute, db, rss in per_minute:
            print(f"{minute:6.1f} {db:6.1f} {rss:8.1f}")
        for name, value in figures.items():
            print(f"{name:40s} {value}")
        print(json.dumps(figures))
        return 0
    finally:
        stop.set()
        if driver is not None and driver.poll() is None:
            os.killpg(driver.pid, signal.SIGTERM)
            try:
                driver.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(driver.pid, signal.SIGKILL)
        shutil.rmtree(data_dir, ignore_errors=True)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


if __name__ == "__main__":
    sys.exit(main())
