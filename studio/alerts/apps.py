"""Alerts as an app of their own: rules are evaluated against every run event as it is recorded."""
from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "studio.alerts"
    label = "alerts"
    verbose_name = "Alerts"

    def ready(self):
        from studio.alerts.evaluation import on_run_event
        from studio.runs.signals import run_event_recorded

        run_event_recorded.connect(on_run_event, dispatch_uid="alerts.evaluation")
