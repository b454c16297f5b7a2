"""The studio app: connects the signals that tell open sockets about revoked access, those that move
change tokens (``studio.change_tokens``), and the receivers of run events that the run's core
announces (``studio.runs.signals``)."""
from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"

    def ready(self):
        from studio import change_tokens
        from studio.alerts.evaluation import on_run_event as evaluate_alerts
        from studio.realtime.pipeline_runs import send_run_summary
        from studio.realtime.revocation import connect_signals
        from studio.runs.commands import register_driver_command
        from studio.runs.rescale import on_run_event as move_rescales
        from studio.runs.signals import run_event_recorded
        from studio.taps.relay import close_tap, open_tap

        connect_signals()
        change_tokens.connect_signals()
        run_event_recorded.connect(send_run_summary, dispatch_uid="realtime.pipeline_runs")
        run_event_recorded.connect(evaluate_alerts, dispatch_uid="alerts.evaluation")
        run_event_recorded.connect(move_rescales, dispatch_uid="runs.rescale")
        register_driver_command("tap_open", open_tap)
        register_driver_command("tap_close", close_tap)
