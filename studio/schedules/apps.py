"""Savepoint schedules as an app of their own: every Celery worker runs the scheduler while it is up."""
from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "studio.schedules"
    label = "schedules"
    verbose_name = "Savepoint schedules"

    def ready(self):
        from celery.signals import worker_ready, worker_shutdown

        worker_ready.connect(_start_in_worker, dispatch_uid="schedules.start")
        worker_shutdown.connect(_stop_in_worker, dispatch_uid="schedules.stop")


# the scheduler (and the engine it imports) is imported only where a worker starts it, not in
# every process that sets Django up
def _start_in_worker(**kwargs) -> None:
    from studio.schedules.scheduler import start_in_worker

    start_in_worker(**kwargs)


def _stop_in_worker(**kwargs) -> None:
    from studio.schedules.scheduler import stop_in_worker

    stop_in_worker(**kwargs)
