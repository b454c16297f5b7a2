"""Shadow runs as an app of their own: their rows, REST, the Celery task that drives each, and its driver process."""
from django.apps import AppConfig


class ShadowsConfig(AppConfig):
    name = "studio.shadows"
    label = "shadows"
    verbose_name = "Shadow runs"
