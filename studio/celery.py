"""The Celery application; tasks take ids, configuration comes from Django settings.

A worker also watches its runs' drivers: when it is ready it starts the heartbeat
monitor (``studio.liveness``), and stops it when it shuts down.
"""
import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["studio"])

_monitor = None


@worker_ready.connect
def _start_heartbeat_monitor(**_):
    global _monitor
    from studio.liveness import HeartbeatMonitor

    _monitor = HeartbeatMonitor().start()


@worker_shutdown.connect
def _stop_heartbeat_monitor(**_):
    if _monitor is not None:
        _monitor.stop()
