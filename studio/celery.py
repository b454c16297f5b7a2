"""The Celery application; tasks take ids, configuration comes from Django settings.

A worker also watches its runs' drivers and takes scheduled savepoints: when it is ready it
starts the heartbeat monitor (``studio.runs.liveness``) and the savepoint scheduler
(``studio.schedules.scheduler``) and its warm drivers (``studio.processes.driver_pool``), and stops
them when it shuts down.
"""
import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["studio.runs", "studio.alerts"])

_loops: list = []


@worker_ready.connect
def _start_background_loops(**_):
    from studio.runs.liveness import HeartbeatMonitor
    from studio.schedules.scheduler import ScheduleLoop

    from studio.processes.driver_pool import driver_pool

    _loops.extend([HeartbeatMonitor().start(), ScheduleLoop().start()])
    driver_pool().fill_in_background()


@worker_shutdown.connect
def _stop_background_loops(**_):
    from studio.processes.driver_pool import driver_pool

    while _loops:
        _loops.pop().stop()
    driver_pool().close()
