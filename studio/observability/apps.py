"""The app's wiring: traces are built from run events as they are recorded."""
from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "studio.observability"
    label = "observability"
    verbose_name = "Observability"

    def ready(self):
        from studio.runs.signals import run_event_recorded

        run_event_recorded.connect(_on_run_event, dispatch_uid="observability.traces")


def _on_run_event(sender, run_id: int, pipeline_id: int, event: dict, **kwargs) -> None:
    from studio.observability.traces import on_run_event

    on_run_event(run_id, pipeline_id, event)
