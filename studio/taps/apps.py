"""Live taps as an app of their own: a run's driver opens and closes them on the commands registered here."""
from django.apps import AppConfig


class TapsConfig(AppConfig):
    name = "studio.taps"
    label = "taps"
    verbose_name = "Live taps"

    def ready(self):
        from studio.runs.commands import register_driver_command
        from studio.taps.relay import close_tap, open_tap

        register_driver_command("tap_open", open_tap)
        register_driver_command("tap_close", close_tap)
