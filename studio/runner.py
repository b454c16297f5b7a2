"""The driver process of one run: wires the engine's JobMaster to Redis and the database.

``python -m studio.runner <run id>`` is started by the ``launch_run`` Celery task. It
runs the JobMaster (the Spark driver) and:

- stores every engine event as a RunEvent and fans it out (``record_event``);
- takes commands (cancel) from the run's Redis list;
- heartbeats into the Run row so the studio can tell a lost driver from a quiet one;
- turns SIGTERM/SIGINT into a cancel, so stopping the studio ends runs cleanly.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path

import django

HEARTBEAT_INTERVAL_S = 2.0
logger = logging.getLogger("studio.runner")


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    django.setup()
    from django.conf import settings
    from django.utils import timezone

    from engine.cluster.spark_job_master import SparkJobMaster
    from engine.spec import normalise_definition
    from studio.models import Run
    from studio.realtime.events import record_event

    run_id = int(argv[0])
    run = Run.objects.select_related("version").get(pk=run_id)
    definition = normalise_definition({**run.version.definition, "mode": run.mode})
    checkpoint_dir = str(Path(settings.CHECKPOINT_ROOT) / f"run-{run_id}")
    Run.objects.filter(pk=run_id).update(checkpoint_dir=checkpoint_dir, heartbeat_at=timezone.now())

    def on_event(event: dict) -> None:
        event = dict(event)
        event_type = event.pop("type")
        if event_type == "status":
            from studio.realtime.events import set_status

            set_status(run_id, event["status"], event.get("cause"))
        else:
            record_event(run_id, event_type, event)

    job_master = SparkJobMaster(definition, checkpoint_dir=checkpoint_dir, on_event=on_event,
                                spark_master=settings.SPARK_MASTER or None)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: job_master.cancel())
    threading.Thread(target=_follow_commands, args=(run_id, job_master, stop), daemon=True).start()
    threading.Thread(target=_heartbeat, args=(run_id, stop), daemon=True).start()
    try:
        outcome = job_master.run()
    finally:
        stop.set()
    logger.info("run %s ended: %s %s", run_id, outcome.status, outcome.failure_cause or "")
    return 0


def _follow_commands(run_id: int, job_master, stop: threading.Event) -> None:
    import redis
    from django.conf import settings

    from studio.run_commands import command_key

    client = redis.Redis.from_url(settings.REDIS_URL)
    while not stop.is_set():
        try:
            item = client.blpop([command_key(run_id)], timeout=1)
        except redis.RedisError:
            stop.wait(1)
            continue
        if item is None:
            continue
        command = json.loads(item[1])
        if command.get("command") == "cancel":
            job_master.cancel()
        else:
            logger.warning("run %s: unknown command %r", run_id, command)


def _heartbeat(run_id: int, stop: threading.Event) -> None:
    from django.db import close_old_connections
    from django.utils import timezone

    from studio.models import Run

    while not stop.wait(HEARTBEAT_INTERVAL_S):
        try:
            Run.objects.filter(pk=run_id).update(heartbeat_at=timezone.now())
        except Exception:
            logger.warning("heartbeat of run %s failed", run_id, exc_info=True)
            close_old_connections()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main(sys.argv[1:]))
