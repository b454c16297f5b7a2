"""The state browser as an app of its own: REST views over the engine's snapshot reader, run in budgeted workers."""
from django.apps import AppConfig


class StatebrowserConfig(AppConfig):
    name = "studio.statebrowser"
    label = "statebrowser"
    verbose_name = "State browser"
