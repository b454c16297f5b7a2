"""Uploads and the file browser as an app of their own; they keep no table: the grants say where."""
from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "studio.uploads"
    label = "uploads"
    verbose_name = "Uploads and the file browser"
