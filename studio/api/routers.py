"""How the API's URLs are written, for the core's routes and every feature's: every path works with
and without its trailing slash, and a run's nested resources hang under ``runs/<run_pk>/``."""
from django.urls import re_path
from rest_framework.routers import DefaultRouter

RUN = r"runs/(?P<run_pk>\d{1,18})"


class StudioRouter(DefaultRouter):
    """A router whose paths take an optional trailing slash, with no root view."""

    include_root_view = False

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"  # scripts may write /api/pipelines or /api/pipelines/


def route(pattern: str, view, name: str):
    """A path of its own, ``pattern`` with an optional trailing slash."""
    return re_path(rf"^{pattern}/?$", view, name=name)
