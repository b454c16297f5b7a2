"""Who may see and do what: the one place that answers it, for REST and WebSockets alike.

A user may *view* the pipelines they own and those shared with one of their groups; a
share may also grant *edit* (save versions, roll back) and *run* (start, cancel,
savepoints, stop). Only the owner may delete a pipeline or change its shares.
Superusers may do everything. Runs, checkpoints and savepoints follow their pipeline.
"""
from __future__ import annotations

from typing import NamedTuple

from django.db.models import Q, QuerySet

from studio.models import Checkpoint, Pipeline, PipelineShare, Run

VIEW, EDIT, RUN, OWN = "view", "edit", "run", "own"
PERMISSIONS = (VIEW, EDIT, RUN, OWN)


def _is_active(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def pipelines_visible_to(user) -> QuerySet[Pipeline]:
    """The pipelines ``user`` may view."""
    if not _is_active(user):
        return Pipeline.objects.none()
    if user.is_superuser:
        return Pipeline.objects.all()
    shared = PipelineShare.objects.filter(group__user=user).values("pipeline_id")
    return Pipeline.objects.filter(Q(owner=user) | Q(id__in=shared))


def pipelines_runnable_by(user) -> QuerySet[Pipeline]:
    """The pipelines ``user`` may run (owned, or shared with one of their groups with run)."""
    if not _is_active(user):
        return Pipeline.objects.none()
    if user.is_superuser:
        return Pipeline.objects.all()
    shared = PipelineShare.objects.filter(group__user=user, can_run=True).values("pipeline_id")
    return Pipeline.objects.filter(Q(owner=user) | Q(id__in=shared))


def runs_visible_to(user) -> QuerySet[Run]:
    return Run.objects.filter(pipeline__in=pipelines_visible_to(user).values("id"))


def checkpoints_visible_to(user) -> QuerySet[Checkpoint]:
    return Checkpoint.objects.filter(run__pipeline__in=pipelines_visible_to(user).values("id"))


def visible_run(user, run_pk, *related: str) -> Run | None:
    """Run ``run_pk`` (with its pipeline and ``related`` joined) if ``user`` may view it, else None.

    One lookup by key and then the pipeline's permissions: for one run that is cheaper than
    filtering by every pipeline the user may view (``runs_visible_to``), and it says the same."""
    run = Run.objects.select_related("pipeline", *related).filter(pk=run_pk).first()
    if run is None or VIEW not in pipeline_permissions(user, run.pipeline):
        return None
    return run


class AccessToRun(NamedTuple):
    """What a user may do with a run, and its change tokens (``studio.change_tokens``) as read with it."""

    run_id: int
    pipeline_id: int
    permissions: frozenset[str]
    change_token: str
    pipeline_change_token: str


class AccessToPipeline(NamedTuple):
    """What a user may do with a pipeline, and its change tokens as read with it."""

    pipeline_id: int
    permissions: frozenset[str]
    change_token: str
    runs_change_token: str


def access_to_run(user, run_pk) -> AccessToRun | None:
    """What ``user`` may do with run ``run_pk`` (None: no such run), without loading the run.

    For cached answers (``studio.api.caching``): one query reads the permissions' inputs and
    the change tokens together, before any part of the answer is read."""
    row = Run.objects.filter(pk=run_pk).values_list(
        "pipeline_id", "pipeline__owner_id", "change_token", "pipeline__change_token").first()
    if row is None:
        return None
    pipeline_id, owner_id, change_token, pipeline_change_token = row
    permissions = pipeline_permissions(user, Pipeline(pk=pipeline_id, owner_id=owner_id))
    return AccessToRun(int(run_pk), pipeline_id, permissions, change_token, pipeline_change_token)


def access_to_pipeline(user, pipeline_pk) -> AccessToPipeline | None:
    """What ``user`` may do with pipeline ``pipeline_pk`` (None: no such pipeline), with its change tokens."""
    row = Pipeline.objects.filter(pk=pipeline_pk).values_list("owner_id", "change_token", "runs_change_token").first()
    if row is None:
        return None
    owner_id, change_token, runs_change_token = row
    permissions = pipeline_permissions(user, Pipeline(pk=pipeline_pk, owner_id=owner_id))
    return AccessToPipeline(int(pipeline_pk), permissions, change_token, runs_change_token)


def pipeline_permissions(user, pipeline: Pipeline) -> frozenset[str]:
    """What ``user`` may do with ``pipeline``: a subset of view, edit, run, own."""
    if not _is_active(user):
        return frozenset()
    if user.is_superuser or pipeline.owner_id == user.id:
        return frozenset(PERMISSIONS)
    granted: set[str] = set()
    for share in pipeline.shares.filter(group__user=user):
        granted.add(VIEW)
        if share.can_edit:
            granted.add(EDIT)
        if share.can_run:
            granted.add(RUN)
    return frozenset(granted)


def why_owner_may_not(owner, permission: str, pipeline: Pipeline) -> str | None:
    """Work done later on someone's behalf (a savepoint schedule, an alert rule and its webhooks) runs as
    that user, with the permissions they have when it runs: None when ``owner`` may still do
    ``permission`` with ``pipeline``, otherwise why not (for the work's log)."""
    if owner is None:
        return "the user who made it no longer exists"
    if not owner.is_active:
        return f"{owner.get_username()}'s account is deactivated"
    if not can(owner, permission, pipeline):
        return f"{owner.get_username()} may no longer {permission} pipeline {pipeline.pk}"
    return None


def can(user, permission: str, pipeline: Pipeline) -> bool:
    if permission not in PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}; expected one of {PERMISSIONS}")
    return permission in pipeline_permissions(user, pipeline)
