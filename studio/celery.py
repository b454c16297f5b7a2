"""The Celery application; tasks take ids, configuration comes from Django settings.

A worker also watches its runs' drivers: when it is ready it starts the heartbeat monitor
(``studio.runs.liveness``) and its warm drivers (``studio.processes.driver_pool``), and stops
them when it shuts down. Apps start their own background work from the same signals (the
savepoint scheduler: ``studio.schedules``). Tasks are found in every installed app's
``tasks`` module, and in ``studio.runs.tasks``.
"""
import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()  # the installed apps' tasks modules
app.autodiscover_tasks(["studio.runs"])

_loops: list = []


@worker_ready.connect
def _start_background_loops(**_):
    from studio.processes.driver_pool import driver_pool
    from studio.runs.liveness import HeartbeatMonitor

    _loops.append(HeartbeatMonitor().start())
    driver_pool().fill_in_background()


@worker_shutdown.connect
def _stop_background_loops(**_):
    from studio.processes.driver_pool import driver_pool

    while _loops:
        _loops.pop().stop()
    driver_pool().close()
