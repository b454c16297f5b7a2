"""Permission policies: who may do which action on a pipeline, its runs and checkpoints.

A view names, per action, the pipeline permission it needs (``studio.access``: view,
edit, run, own) in ``action_permissions``; ``"<action>:<METHOD>"`` keys win over plain
action keys, and anything not named needs ``view``. Objects the user may not even view
never reach this check: the views' querysets leave them out, so they are 404s. A visible
object without the needed permission is a 403 naming what is missing.
"""
from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from studio.access import VIEW, can
from studio.models import Checkpoint, Pipeline, Run, SavepointRequest


def required_permission(view, method: str) -> str:
    """The pipeline permission ``view``'s current action needs for ``method``."""
    mapping = getattr(view, "action_permissions", None)
    if mapping is None:
        raise ImproperlyConfigured(f"{type(view).__name__} must define .action_permissions "
                                   "(a dict of action to view | edit | run | own)")
    action = getattr(view, "action", None)
    return mapping.get(f"{action}:{method}", mapping.get(action, VIEW))


def pipeline_of(obj) -> Pipeline:
    if isinstance(obj, Pipeline):
        return obj
    if isinstance(obj, Run):
        return obj.pipeline
    if isinstance(obj, (Checkpoint, SavepointRequest)):
        return obj.run.pipeline
    if hasattr(obj, "owning_pipeline"):  # schedules, alert rules, taps
        return obj.owning_pipeline
    raise ImproperlyConfigured(f"PipelineAccess does not know how to find the pipeline of a {type(obj).__name__}")


class PipelineAccess(BasePermission):
    """Object permission: the user holds the permission the action needs on the object's pipeline."""

    def has_object_permission(self, request, view, obj) -> bool:
        needed = required_permission(view, request.method)
        pipeline = pipeline_of(obj)
        if not can(request.user, needed, pipeline):
            raise PermissionDenied(f"you may not {needed} pipeline {pipeline.id}"
                                   + (" (only its owner may)" if needed == "own" else ""))
        return True


def check_pipeline_permission(request, view, obj) -> None:
    """The same check for views that load their object themselves (nested routes)."""
    PipelineAccess().has_object_permission(request, view, obj)
