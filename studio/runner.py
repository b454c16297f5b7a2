"""The driver process of one run: wires the engine's JobMaster to Redis and the database.

``python -m studio.runner <run id>`` is started by the ``launch_run`` Celery task. It
runs the JobMaster (the Spark driver) and:

- stores every engine event as a RunEvent and fans it out (``record_event``), metrics
  with rates and ratios added (``studio.metrics``);
- takes commands from the run's Redis list: cancel, savepoint, stop (with a savepoint);
  each savepoint's outcome is reported as a ``savepoint`` event with its request id;
- heartbeats into the Run row so the studio can tell a lost driver from a quiet one, and
  cancels its job when it finds the run already ended (declared lost, say), so the
  database and the engine never disagree for long;
- turns SIGTERM/SIGINT into a cancel, so stopping the studio ends runs cleanly.

Threads: the main thread runs the job; a command thread, a heartbeat thread, and one
short-lived thread per savepoint request waiting for its outcome.
"""
from __future__ import annotations

import inspect
import json
import logging
import os
import signal
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

import django

HEARTBEAT_INTERVAL_S = 2.0
SAVEPOINT_FLUSH_TIMEOUT_S = 10.0
logger = logging.getLogger("studio.runner")


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    django.setup()
    from django.conf import settings
    from django.utils import timezone

    from engine.checkpoint.coordinator import describe_job_graph
    from engine.cluster.spark_job_master import SparkJobMaster
    from engine.spec import normalise_definition
    from studio.metrics import VertexMetricsTracker
    from studio.models import TERMINAL_STATUSES, Run
    from studio.realtime.events import record_event, set_status

    run_id = int(argv[0])
    run = Run.objects.select_related("version", "restored_from").get(pk=run_id)
    definition = normalise_definition({**run.version.definition, "mode": run.mode})
    checkpoint_dir = str(Path(settings.CHECKPOINT_ROOT) / f"run-{run_id}")
    restore = run.restore_path or (run.restored_from.external_path if run.restored_from else None) or None
    Run.objects.filter(pk=run_id).update(checkpoint_dir=checkpoint_dir, heartbeat_at=timezone.now())
    savepoints = SavepointReporter(run_id)
    ended = threading.Event()
    holder: dict = {}

    def on_event(event: dict) -> None:
        event = dict(event)
        event_type = event.pop("type")
        if event_type == "status":
            if event["status"] in TERMINAL_STATUSES:
                # a stop's savepoint is reported before the FINISHED it leads to
                savepoints.flush(SAVEPOINT_FLUSH_TIMEOUT_S, kinds=("sync-savepoint",))
                ended.set()
            set_status(run_id, event["status"], event.get("cause"))
            return
        if event_type == "metrics" and "tracker" in holder:
            event["vertices"] = holder["tracker"].enrich(event.get("vertices") or {})
        record_event(run_id, event_type, event)

    options = {"checkpoint_dir": checkpoint_dir, "on_event": on_event, "spark_master": settings.SPARK_MASTER or None,
               "restore": restore}
    if "allow_non_restored_state" in inspect.signature(SparkJobMaster).parameters:
        options["allow_non_restored_state"] = run.allow_non_restored_state
    job_master = SparkJobMaster(definition, **options)
    holder["tracker"] = VertexMetricsTracker(describe_job_graph(job_master.job_graph))
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: job_master.cancel())
    threading.Thread(target=_follow_commands, args=(run, job_master, savepoints, stop), daemon=True,
                     name="commands").start()
    threading.Thread(target=_heartbeat, args=(run_id, job_master, ended, stop), daemon=True,
                     name="heartbeat").start()
    try:
        outcome = job_master.run()
    finally:
        stop.set()
        _drop_commands(run)
    savepoints.flush(SAVEPOINT_FLUSH_TIMEOUT_S)
    logger.info("run %s ended: %s %s", run_id, outcome.status, outcome.failure_cause or "")
    return 0


class SavepointReporter:
    """Reports each savepoint request's outcome once, as a ``savepoint`` event of the run.

    Thread-safe: requests come from the command thread, outcomes from the futures' threads,
    ``flush`` from the job's event thread.
    """

    def __init__(self, run_id: int):
        self.run_id = run_id
        self._lock = threading.Lock()
        self._open: dict[str, tuple[Future, str]] = {}  # guarded by: self._lock

    def track(self, request_id: str, kind: str, future: Future) -> None:
        with self._lock:
            self._open[request_id] = (future, kind)
        future.add_done_callback(lambda _: threading.Thread(
            target=self._report_in_thread, args=(request_id,), daemon=True, name=f"savepoint-{request_id[:8]}").start())

    def fail(self, request_id: str, kind: str, cause: str) -> None:
        future: Future = Future()
        future.set_exception(RuntimeError(cause))
        self.track(request_id, kind, future)

    def flush(self, timeout: float, kinds: tuple[str, ...] = ("savepoint", "sync-savepoint")) -> None:
        """Report every open request of ``kinds`` whose outcome is known or arrives within ``timeout``."""
        with self._lock:
            open_requests = {request_id: future for request_id, (future, kind) in self._open.items() if kind in kinds}
        for future in open_requests.values():
            try:
                future.exception(timeout=timeout)
            except Exception:
                pass
        for request_id in open_requests:
            self._report(request_id)

    def _report_in_thread(self, request_id: str) -> None:
        from django.db import connections

        try:
            self._report(request_id)
        finally:
            connections.close_all()

    def _report(self, request_id: str) -> None:
        from studio.realtime.events import record_event

        with self._lock:
            entry = self._open.get(request_id)
            if entry is None or not entry[0].done():
                return
            del self._open[request_id]
        future, kind = entry
        error = future.exception()
        if error is None:
            data = {"request_id": request_id, "kind": kind, "status": "COMPLETED", "location": str(future.result())}
        else:
            data = {"request_id": request_id, "kind": kind, "status": "FAILED",
                    "failure_cause": str(error) or type(error).__name__}
        try:
            record_event(self.run_id, "savepoint", data)
        except Exception:
            logger.exception("could not record the outcome of savepoint request %s", request_id)


def _follow_commands(run, job_master, savepoints: SavepointReporter, stop: threading.Event) -> None:
    import redis
    from django.conf import settings

    from studio.run_commands import command_key

    run_id = run.id
    client = redis.Redis.from_url(settings.REDIS_URL)
    while not stop.is_set():
        try:
            item = client.blpop([command_key(run)], timeout=1)
        except redis.RedisError:
            stop.wait(1)  # Redis restarting: commands wait in the list until it is back
            continue
        if item is None:
            continue
        try:
            _execute(json.loads(item[1]), run_id, job_master, savepoints)
        except Exception:
            logger.exception("run %s: command %r failed", run_id, item[1])


def _execute(command: dict, run_id: int, job_master, savepoints: SavepointReporter) -> None:
    name = command.get("command")
    if name == "cancel":
        job_master.cancel()
        return
    if name not in ("savepoint", "stop"):
        logger.warning("run %s: unknown command %r", run_id, command)
        return
    request_id = command["request_id"]
    kind = "sync-savepoint" if name == "stop" else "savepoint"
    target = command.get("target_directory") or None
    method = getattr(job_master, "stop_with_savepoint" if name == "stop" else "trigger_savepoint", None)
    if method is None:
        savepoints.fail(request_id, kind, f"this engine version cannot {name} with a savepoint")
        return
    try:
        future = method(bool(command.get("drain")), target) if name == "stop" else method(target)
    except Exception as error:
        savepoints.fail(request_id, kind, str(error) or type(error).__name__)
        return
    savepoints.track(request_id, kind, future)


def _drop_commands(run) -> None:
    from studio.run_commands import drop_commands

    try:
        drop_commands(run)
    except Exception:
        logger.info("could not drop the command list of run %s", run.id, exc_info=True)


def _heartbeat(run_id: int, job_master, ended: threading.Event, stop: threading.Event) -> None:
    from django.db import close_old_connections
    from django.utils import timezone

    from studio.models import TERMINAL_STATUSES, Run

    while not stop.wait(HEARTBEAT_INTERVAL_S):
        try:
            alive = Run.objects.filter(pk=run_id).exclude(status__in=TERMINAL_STATUSES).update(
                heartbeat_at=timezone.now())
        except Exception:
            logger.warning("heartbeat of run %s failed", run_id, exc_info=True)
            close_old_connections()
            continue
        if not alive and not ended.is_set() and not stop.is_set():
            # the studio ended the run (declared this driver lost, or the run was deleted):
            # the engine must not go on with a job the database says is over
            logger.warning("run %s ended in the studio while its job still ran; cancelling the job", run_id)
            job_master.cancel()
            return


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main(sys.argv[1:]))
