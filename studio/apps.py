"""The studio app: connects the signals that tell open sockets about revoked access, and those that move
change tokens (``studio.change_tokens``)."""
from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "studio"

    def ready(self):
        from studio import change_tokens
        from studio.realtime.revocation import connect_signals

        connect_signals()
        change_tokens.connect_signals()
