"""How the API's URLs are written, for the core's routes and every feature's: every path works with
and without its trailing slash, and a run's nested resources hang under ``runs/<id>/``.

Path parameters are named alike across the tree: the object a path starts from is ``{id}``
(``/api/runs/{id}/``, ``/api/runs/{id}/checkpoints/``, ``/api/pipelines/{id}/runs/``), and an object below
it is named for its kind (``{checkpoint_id}``, ``{request_id}``, ``{tap_id}``, ``{share_id}``), so a
generated client calls every operation on one run with ``id=``. Only the names in the schema changed:
every URL reads as before."""
from django.urls import re_path
from rest_framework.routers import DefaultRouter

RUN = r"runs/(?P<id>\d{1,18})"
"""A run's nested resources: ``route(f"{RUN}/taps", ...)``; the view's ``RunNestedMixin`` reads the run."""


class StudioRouter(DefaultRouter):
    """A router whose paths take an optional trailing slash, with no root view."""

    include_root_view = False

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"  # scripts may write /api/pipelines or /api/pipelines/


def route(pattern: str, view, name: str):
    """A path of its own, ``pattern`` with an optional trailing slash."""
    return re_path(rf"^{pattern}/?$", view, name=name)
