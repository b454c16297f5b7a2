"""Retention as an app of its own: every Celery worker runs the retention loop while it is up."""
from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "studio.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self):
        from celery.signals import worker_ready, worker_shutdown

        worker_ready.connect(_start_in_worker, dispatch_uid="retention.start")
        worker_shutdown.connect(_stop_in_worker, dispatch_uid="retention.stop")


_loops: list = []


def _start_in_worker(**kwargs) -> None:
    from studio.retention.loop import RetentionLoop

    _loops.append(RetentionLoop().start())


def _stop_in_worker(**kwargs) -> None:
    while _loops:
        _loops.pop().stop()
