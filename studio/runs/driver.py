"""The driver process of one run: wires the engine's JobMaster to Redis and the database.

``python -m studio.runs.driver <run id>`` is started by the ``launch_run`` Celery task, or
``python -m studio.runs.driver --warm`` before its run is known (``studio.processes.driver_pool``: it
starts its Spark session, then reads ``<run id> <token>`` from standard input). It runs
the JobMaster (the Spark driver) and:

- stores every engine event as a RunEvent and fans it out (``record_event``), metrics
  with rates and ratios added (``studio.runs.vertex_metrics``);
- takes commands from the run's Redis list: cancel, savepoint, stop (with a savepoint), and
  those features registered (``studio.runs.commands.register_driver_command``: live taps'
  tap_open / tap_close); each savepoint's outcome is reported as a ``savepoint`` event with
  its request id;
- says first what the run waits for (a ``startup`` event: a warm driver or one started for
  the run, its Spark session up or still starting), so the run page can tell a person why
  the first run after the studio starts takes seconds;
- heartbeats into the Run row (with the process's other runs) so the studio can tell a lost driver from a quiet one, and
  cancels its job when it finds the run already ended (declared lost, say), so the
  database and the engine never disagree for long;
- reports with its fencing token (``STUDIO_DRIVER_TOKEN`` from the launching task, or
  one it claims when started by hand): once the studio fenced it, every report is refused
  (``DriverFenced``) and the driver cancels its job;
- turns SIGTERM/SIGINT into a cancel, so stopping the studio ends runs cleanly;
- checks, as it opens them, what crosses into the job: the definition's locations
  (``studio.locations``), the snapshot it restores (``studio.runs.snapshots``: signed by this
  studio as it is, of a pipeline the run's user may run), and hands the job the user's grants
  (checked by every connector at each file, directory and address it uses) and a signer for
  the snapshots it writes (the key stays in this process).

Threads: the main thread runs the job; the process's command thread (``studio.runs.command_follower``),
heartbeat thread (``studio.runs.heartbeats``) and event writer (``studio.runs.event_writer``), and one
short-lived thread per savepoint request waiting for its outcome. In the session driver
(``studio.runs.session_driver``) the same :func:`run_driver` drives each of many runs on a
thread of its own, their jobs in the one Spark application the session holds; the command
thread, the heartbeats and the event writer serve all of them, a few statements and pops a
moment for all its runs instead of several per run.
"""
from __future__ import annotations

import json
import logging
import os
import secrets
import signal
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Callable

import django

SAVEPOINT_FLUSH_TIMEOUT_S = 10.0
RESTART_DETAILS = ("regions", "delay_ms")  # kept from a RESTARTING status for the exceptions history
logger = logging.getLogger("studio.runs.driver")


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    django.setup()
    if argv[:1] == ["--warm"]:
        return warm_main()
    return run_driver(int(argv[0]), os.environ.get("STUDIO_DRIVER_TOKEN"))


def warm_main() -> int:
    """A warm driver (``studio.processes.driver_pool``): start the Spark session, and wait for a run.

    The run comes as one line on standard input, ``<run id> <token>``, maybe before the
    session is up (the driver claims the run and beats at once, then waits for the
    session); the end of input without one (the worker went away) ends this process."""
    from concurrent.futures import ThreadPoolExecutor

    from django.conf import settings

    warming = ThreadPoolExecutor(1, thread_name_prefix="warm-up").submit(
        _start_warm_session, settings.SPARK_MASTER or None, settings.WARM_DRIVER_SLOTS)
    line = sys.stdin.readline().split()
    if len(line) != 2:
        warming.result().stop()
        return 0
    return run_driver(int(line[0]), line[1], warm_session=warming)


def _start_warm_session(master: str | None, slots: int):
    from engine.api import start_warm_session

    session = start_warm_session(master, slots)
    logger.info("warm driver ready: a Spark session with %s slots", session.sparkContext.defaultParallelism)
    return session


def run_driver(run_id: int, token: str | None, warm_session=None, *, session_cluster=None,
               resume_cause: str | None = None, job: "JobReference | None" = None,
               lease_confirmed: Callable[[], bool] | None = None) -> int:
    """Drive run ``run_id`` to its end. ``token``: the fencing token the launching task wrote to
    the run (None: started by hand, this driver claims the run). ``warm_session``: a future of
    the warm driver's Spark session (the job starts a session of its own without one).
    ``session_cluster``: a future of the session driver's ``SessionCluster``, whose shared
    application runs the job instead. ``resume_cause``: the run ran before, in a driver that
    died (why, for its RESTARTING status): it goes on from its latest completed checkpoint.
    ``job``: the caller's reference to the run's job, to cancel it (the session driver stopping).
    ``lease_confirmed``: whether the session driver's lease was renewed recently enough for the job to
    complete a checkpoint (``studio.runs.fencing``; None: a driver of its own, its token alone counts)."""
    from django.conf import settings
    from django.utils import timezone

    from engine.api import (InSession, Spark, describe_vertices, expectation_counts, normalise_definition,
                            session_for, slots_needed, submit)
    from studio.locations import LocationsRefused, resolve_run_locations, run_grants
    from studio.models import TERMINAL_STATUSES, Run, RunStatus
    from studio.run_values import ValuesRefused
    from studio.runs.admission import NOT_RESUMED, why_not_admitted
    from studio.runs.command_follower import command_follower
    from studio.runs.commands import command_key
    from studio.runs.event_writer import event_writer
    from studio.runs.heartbeats import heartbeats
    from studio.runs.events import DriverFenced, set_status
    from studio.runs.fencing import CompletionGuard
    from studio.runs.snapshots import signer_for
    from studio.runs.vertex_metrics import VertexMetricsTracker

    run = Run.objects.select_related("version", "restored_from", "pipeline", "created_by").get(pk=run_id)
    if resume_cause:  # taken back after its driver died: admitted again, as its owner's access is now
        refused = why_not_admitted(run, NOT_RESUMED)
        if refused is not None:
            logger.warning("run %s refused: %s", run_id, refused)
            set_status(run_id, "FAILED", refused, driver_token=token)
            return 0
    try:
        definition = _with_secrets_masked(run)
        definition = resolve_run_locations(run, normalise_definition({**definition, "mode": run.mode}))
    except (LocationsRefused, ValuesRefused) as refused:
        logger.warning("run %s refused: %s", run_id, refused)
        set_status(run_id, "FAILED", str(refused), driver_token=token)
        return 0
    checkpoint_dir = str(Path(settings.CHECKPOINT_ROOT) / f"run-{run_id}")
    try:
        restore = _resumed_snapshot(run, checkpoint_dir) if resume_cause else None
        restore = restore or _restored_snapshot(run)
    except RestoreRefused as refused:
        logger.warning("run %s refused: %s", run_id, refused)
        set_status(run_id, "FAILED", str(refused), driver_token=token)
        return 0
    started = Run.objects.filter(pk=run_id).exclude(status__in=TERMINAL_STATUSES)
    if token is None:
        token = secrets.token_hex(16)
        started.update(driver_token=token)  # started by hand: this driver claims the run
    # every run of this process beats in one write (studio.runs.heartbeats), which confirms its hold too
    beats = heartbeats()
    claimed_at = beats.clock()  # the claim below confirms the hold as of before it was sent
    if not started.filter(driver_token=token).update(checkpoint_dir=checkpoint_dir, heartbeat_at=timezone.now()):
        logger.warning("run %s ended or moved on before its driver started; nothing to do", run_id)
        return 0
    if started.filter(status=RunStatus.CANCELING).exists():  # cancelled while its driver started: no job
        set_status(run_id, RunStatus.CANCELED, driver_token=token)
        _drop_commands(run)
        return 0
    writer = event_writer()  # every event of the run through it, in order: stored with other runs' events
    savepoints = SavepointReporter(run_id, token, record=writer.record)
    ended = threading.Event()
    holder: dict = {}

    def on_stored(stored: Future) -> None:
        error = stored.exception()
        if isinstance(error, DriverFenced):
            logger.warning("%s; cancelling the job", error)
            if "job_master" in holder:
                holder["job_master"].cancel()
        elif error is not None:
            logger.warning("run %s: an event was not stored: %s", run_id, error)

    def on_event(event: dict) -> None:
        event = dict(event)
        event_type = event.pop("type")
        try:
            if event_type == "status":
                if event["status"] in TERMINAL_STATUSES:
                    # a stop's savepoint is reported before the FINISHED it leads to
                    savepoints.flush(SAVEPOINT_FLUSH_TIMEOUT_S, kinds=("sync-savepoint",))
                    ended.set()
                details = {key: event[key] for key in RESTART_DETAILS if key in event}
                # waited for: a status is stored (after every event before it) before the job goes on
                writer.set_status(run_id, event["status"], event.get("cause"), driver_token=token, details=details)
                return
            if event_type == "metrics" and "tracker" in holder:
                now_s = time.monotonic()
                event["vertices"] = holder["tracker"].enrich(event.get("vertices") or {}, now_s)
                event["nodes"] = holder["tracker"].enrich_nodes(event.get("tasks") or {}, now_s,
                                                                enumerators=event.get("enumerators"))
                counts = expectation_counts((event.get("tasks") or {}).values())
                if counts:
                    event["expectations"] = counts
            elif event_type == "checkpoint" and event.get("event") == "completed" and "tracker" in holder:
                holder["tracker"].checkpoint_completed(event)
            # not waited for: the job's thread goes on while the writer stores it with others
            writer.submit(run_id, event_type, event, driver_token=token).add_done_callback(on_stored)
        except DriverFenced as fenced:
            logger.warning("%s; cancelling the job", fenced)
            if "job_master" in holder:
                holder["job_master"].cancel()

    options = {"checkpoint_dir": checkpoint_dir, "on_event": on_event, "restore": restore,
               "grants": run_grants(run), "signer": signer_for(run),
               # a checkpoint completes only while this driver's hold on the run is confirmed (fencing)
               "may_complete_checkpoint": CompletionGuard(beats, run_id, token, lease_confirmed)}
    holder["tracker"] = VertexMetricsTracker(describe_vertices(definition))
    stop = threading.Event()
    job = job or JobReference()
    if threading.current_thread() is threading.main_thread():  # a driver of its own: its signals are the run's
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: job.cancel())
    # beating from the claim on (a warm driver may still be starting its Spark session)
    beats.add(run_id, token, lambda: None if ended.is_set() or stop.is_set() else job.cancel(), confirmed_at=claimed_at)
    master = settings.SPARK_MASTER or None
    session = None
    # what the run waits for, for the run page: a warm driver whose Spark session is still starting
    # (the studio has just started) or a driver started for this run, or neither
    job_config = {"latency_interval_ms": settings.LATENCY_MARKER_INTERVAL_MS}
    spark_future = session_cluster if session_cluster is not None else warm_session
    try:
        if resume_cause:
            writer.set_status(run_id, "RESTARTING", f"{resume_cause}: going on from "
                              + (f"checkpoint {restore['checkpoint_id']}" if restore else "its start"),
                              driver_token=token)
        writer.record(run_id, "startup", {"driver": _driver_kind(warm_session, session_cluster),
                                         "spark": "ready" if spark_future is not None and spark_future.done()
                                         else "starting"}, driver_token=token)
    except DriverFenced as fenced:
        logger.warning("%s; not starting the job", fenced)
        stop.set()
        beats.remove(run_id, token)
        return 0
    if session_cluster is not None:
        try:
            # named after the run and this driver's token: a fenced driver's job leaving the session's
            # slot pool leaves the slots of the run's next job alone
            deployment = InSession(session_cluster.result(), f"run-{run_id}-{token[:8]}", config=job_config)
        except Exception as error:  # the session's Spark application did not start
            logger.exception("the session's Spark application did not start")
            writer.set_status(run_id, "FAILED", f"the shared session did not start: {error}", driver_token=token)
            stop.set()
            beats.remove(run_id, token)
            return 0
    elif warm_session is not None:
        try:
            session = session_for(warm_session.result(), slots_needed(definition), master)
        except Exception:
            logger.exception("the warm Spark session did not start; the job starts one of its own")
    if session_cluster is None:
        deployment = Spark(master=master, session=session, config=job_config)
    job_master = holder["job_master"] = submit(definition, deployment, **options)
    job.set(job_master)
    commands, key = command_follower(), command_key(run)  # one thread pops every run's commands
    def follow(command: dict) -> None:
        _execute(command, run_id, job_master, savepoints)

    commands.add(run_id, key, follow, token)
    try:
        outcome = job_master.wait()
    finally:
        stop.set()
        beats.remove(run_id, token)
        # a later driver of the run in this process (handed back to the session driver while this one, fenced,
        # still ended its job) follows the same command list: its commands are its own
        if commands.remove(key, follow):
            _drop_commands(run)
    savepoints.flush(SAVEPOINT_FLUSH_TIMEOUT_S)
    logger.info("run %s ended: %s %s", run_id, outcome.status, outcome.failure_cause or "")
    return 0


def _driver_kind(warm_session, session_cluster) -> str:
    """The ``startup`` event's ``driver``: the shared session's, a warm one, or one started for the run."""
    if session_cluster is not None:
        return "session"
    return "cold" if warm_session is None else "warm"


def _resumed_snapshot(run, checkpoint_dir: str) -> dict | None:
    """The run's latest completed checkpoint, checked as any restore is, or None when it completed none."""
    from engine.api import SnapshotRefused, latest_checkpoint
    from studio.runs.snapshots import SnapshotForbidden, verified_snapshot

    latest = latest_checkpoint(checkpoint_dir)
    if latest is None:
        return None
    try:
        return verified_snapshot(run.created_by, latest["location"])
    except (SnapshotRefused, SnapshotForbidden, OSError) as refused:
        raise RestoreRefused(f"its latest checkpoint: {refused}") from None


def _with_secrets_masked(run) -> dict:
    """``run``'s definition with its parameters and secrets filled in; from here on every secret it holds
    is masked in what this process sends out: events, broadcasts, its output and its Spark processes'."""
    from studio.run_values import driver_definition
    from studio.secret_masking import SecretMask, activate, mask_output

    definition, secret_values = driver_definition(run)
    if secret_values:
        mask = SecretMask(secret_values)
        activate(mask)
        mask_output(mask)
    return definition


class RestoreRefused(Exception):
    """The snapshot a run would restore is refused when its driver opens it."""


def _restored_snapshot(run) -> dict | None:
    """The metadata of the snapshot ``run`` restores, checked now (signed by this studio as it is, written by a
    pipeline the run's user may run): what is checked is what the job restores. None without one."""
    from engine.api import SnapshotRefused
    from studio.runs.snapshots import SnapshotForbidden, verified_snapshot

    path = run.restore_path or (run.restored_from.external_path if run.restored_from else None)
    if not path:
        return None
    field = "restore_from.path" if run.restored_from_id is None else "restore_from"
    try:
        return verified_snapshot(run.created_by, path)
    except (SnapshotRefused, SnapshotForbidden, OSError) as refused:
        raise RestoreRefused(f"{field}: {refused}") from None


class SavepointReporter:
    """Reports each savepoint request's outcome once, as a ``savepoint`` event of the run.

    Thread-safe: requests come from the command thread, outcomes from the futures' threads,
    ``flush`` from the job's event thread.
    """

    def __init__(self, run_id: int, driver_token: str | None = None, record=None):
        self.run_id = run_id
        self.driver_token = driver_token
        self._record_event = record
        """How an outcome is stored (``record_event``'s signature): the driver's event writer, in order with
        the run's other events; None: ``studio.runs.events.record_event``."""
        self._lock = threading.Lock()
        self._open: dict[str, tuple[Future, str]] = {}  # guarded by: self._lock
        self._reporting = threading.Lock()
        """Held from taking a request out of ``_open`` until its outcome is recorded: a flush
        waits for a report a future's thread has begun, so a stop's outcome always precedes
        the FINISHED it leads to."""

    def track(self, request_id: str, kind: str, future: Future) -> None:
        with self._lock:
            self._open[request_id] = (future, kind)
        future.add_done_callback(lambda _: threading.Thread(
            target=self._report_in_thread, args=(request_id,), daemon=True, name=f"savepoint-{request_id[:8]}").start())

    def expect(self, request_id: str, kind: str) -> Future:
        """Track a request before the engine is asked: its outcome goes into the returned future.
        Tracked first, a stop that completes (and ends the job) at once is still flushed."""
        outcome: Future = Future()
        self.track(request_id, kind, outcome)
        return outcome

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
        with self._reporting:
            pass  # a report begun on a future's thread before the snapshot above is recorded now

    def _report_in_thread(self, request_id: str) -> None:
        from django.db import connections

        try:
            self._report(request_id)
        finally:
            connections.close_all()

    def _report(self, request_id: str) -> None:
        with self._reporting:
            with self._lock:
                entry = self._open.get(request_id)
                if entry is None or not entry[0].done():
                    return
                del self._open[request_id]
            self._record(request_id, *entry)

    def _record(self, request_id: str, future: Future, kind: str) -> None:
        from studio.runs import events

        record_event = self._record_event or events.record_event
        error = future.exception()
        if error is None:
            data = {"request_id": request_id, "kind": kind, "status": "COMPLETED", "location": str(future.result())}
        else:
            data = {"request_id": request_id, "kind": kind, "status": "FAILED",
                    "failure_cause": str(error) or type(error).__name__}
        try:
            record_event(self.run_id, "savepoint", data, driver_token=self.driver_token)
        except Exception:
            logger.exception("could not record the outcome of savepoint request %s", request_id)


def _execute(command: dict, run_id: int, job_master, savepoints: SavepointReporter) -> None:
    from studio.runs.commands import driver_command

    name = command.get("command")
    if name == "cancel":
        job_master.cancel()
        return
    handler = driver_command(name)
    if handler is not None:  # a feature's (studio.runs.commands.register_driver_command)
        handler(command, run_id, job_master)
        return
    if name not in ("savepoint", "stop"):
        logger.warning("run %s: unknown command %r", run_id, command)
        return
    request_id = command["request_id"]
    kind = "sync-savepoint" if name == "stop" else "savepoint"
    target = command.get("target_directory") or None
    outcome = savepoints.expect(request_id, kind)
    try:
        future = (job_master.stop_with_savepoint(bool(command.get("drain")), target) if name == "stop"
                  else job_master.trigger_savepoint(target))
    except Exception as error:
        outcome.set_exception(RuntimeError(str(error) or type(error).__name__))
        return
    future.add_done_callback(lambda done: _copy_outcome(done, outcome))


def _copy_outcome(done: Future, outcome: Future) -> None:
    try:
        outcome.set_result(done.result())
    except Exception as error:  # failed or cancelled
        outcome.set_exception(error)


def _drop_commands(run) -> None:
    from studio.runs.commands import drop_commands

    try:
        drop_commands(run)
    except Exception:
        logger.info("could not drop the command list of run %s", run.id, exc_info=True)


class JobReference:
    """The run's job once it is submitted; a cancel before that cancels it as soon as it is."""

    def __init__(self):
        self._lock = threading.Lock()
        self._job_master = None  # guarded by: self._lock
        self._cancelled = False  # guarded by: self._lock

    def set(self, job_master) -> None:
        with self._lock:
            self._job_master = job_master
            cancelled = self._cancelled
        if cancelled:
            job_master.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            job_master = self._job_master
        if job_master is not None:
            job_master.cancel()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main(sys.argv[1:]))
