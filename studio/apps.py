"""The studio app: connects the signals that tell open sockets about revoked access."""
from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"

    def ready(self):
        from studio.realtime.revocation import connect_signals

        connect_signals()
