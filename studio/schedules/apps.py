"""Savepoint schedules as an app of their own: every Celery worker runs the scheduler while it is up."""
from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "studio.schedules"
    label = "schedules"
    verbose_name = "Savepoint schedules"

    def ready(self):
        from celery.signals import worker_ready, worker_shutdown

        from studio.schedules.scheduler import start_in_worker, stop_in_worker

        worker_ready.connect(start_in_worker, dispatch_uid="schedules.start", weak=False)
        worker_shutdown.connect(stop_in_worker, dispatch_uid="schedules.stop", weak=False)
