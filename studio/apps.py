"""The studio app: the core models and the run's life. Connects the signals that tell open sockets
about revoked access, those that move change tokens (``studio.change_tokens``), and its own
receivers of the run events the run's core announces (``studio.runs.signals``): the pipeline
sockets' run summaries and rescales. Features are apps of their own that subscribe the same way."""
from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"

    def ready(self):
        from studio import change_tokens
        from studio.realtime.pipeline_runs import send_run_summary
        from studio.realtime.revocation import connect_signals
        from studio.runs.rescale import on_run_event as move_rescales
        from studio.runs.signals import run_event_recorded

        connect_signals()
        change_tokens.connect_signals()
        run_event_recorded.connect(send_run_summary, dispatch_uid="realtime.pipeline_runs")
        run_event_recorded.connect(move_rescales, dispatch_uid="runs.rescale")
