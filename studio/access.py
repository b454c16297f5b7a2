"""Who may see and do what: the one place that answers it, for REST and WebSockets alike.

A pipeline's permissions are *view*, *edit* (save versions, roll back, Git), *run* (start,
cancel, savepoints, stop, restore) and *own* (delete, share, move to another owner). They
come from, and only from:

- owning it: its creator holds all four while no team owns it; once a team does, the
  members hold what their role gives (``studio.teams.ROLE_PERMISSIONS``) and the creator no more
  than their own role, so removing a member takes their access away at once;
- a share with one of their groups (``PipelineShare``): view, and edit and run when granted;
- a share with one of their teams (``TeamShare``): the share's role or their role in that
  team, whichever is less;
- being a superuser: everything.

Runs, checkpoints, savepoints, taps, files and Git bindings follow their pipeline. Every
check of the studio (REST, sockets, schedules and alerts acting later, restores by path)
asks this module: :func:`pipeline_permissions` for one pipeline, :func:`pipelines_with` for a
queryset, and they say the same.
"""
from __future__ import annotations

from typing import NamedTuple

from django.db.models import Q, QuerySet

from studio.models import Checkpoint, Pipeline, PipelineShare, Run, Team, TeamMembership, TeamShare
from studio.teams import ROLE_PERMISSIONS, ROLES, at_least, lesser, role_in, roles_from

VIEW, EDIT, RUN, OWN = "view", "edit", "run", "own"
PERMISSIONS = (VIEW, EDIT, RUN, OWN)
_ADMIN = ROLES[-1]


def _is_active(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def pipelines_visible_to(user) -> QuerySet[Pipeline]:
    """The pipelines ``user`` may view."""
    return pipelines_with(user, VIEW)


def pipelines_runnable_by(user) -> QuerySet[Pipeline]:
    """The pipelines ``user`` may run."""
    return pipelines_with(user, RUN)


def pipelines_with(user, permission: str) -> QuerySet[Pipeline]:
    """The pipelines on which ``user`` holds ``permission``: the queryset form of :func:`pipeline_permissions`."""
    _check_permission(permission)
    if not _is_active(user):
        return Pipeline.objects.none()
    if user.is_superuser:
        return Pipeline.objects.all()
    roles = _roles_giving(permission)
    team_owned = TeamMembership.objects.filter(user=user, role__in=roles).values("team_id")
    team_shared = TeamShare.objects.filter(role__in=roles, team__memberships__user=user,
                                           team__memberships__role__in=roles).values("pipeline_id")
    granted = Q(owner=user, team__isnull=True) | Q(team__in=team_owned) | Q(id__in=team_shared)
    if permission != OWN:
        group_shared = PipelineShare.objects.filter(group__user=user, **_SHARE_FLAG.get(permission, {}))
        granted |= Q(id__in=group_shared.values("pipeline_id"))
    return Pipeline.objects.filter(granted)


_SHARE_FLAG = {EDIT: {"can_edit": True}, RUN: {"can_run": True}}


def pipelines_with_role(user, weakest: str) -> QuerySet[Pipeline]:
    """The pipelines on which ``user`` holds ``weakest`` or a stronger team role: the queryset form of
    :func:`holds_role` (group shares give no role)."""
    if not _is_active(user):
        return Pipeline.objects.none()
    if user.is_superuser:
        return Pipeline.objects.all()
    roles = roles_from(weakest)
    team_owned = TeamMembership.objects.filter(user=user, role__in=roles).values("team_id")
    team_shared = TeamShare.objects.filter(role__in=roles, team__memberships__user=user,
                                           team__memberships__role__in=roles).values("pipeline_id")
    return Pipeline.objects.filter(Q(owner=user, team__isnull=True) | Q(team__in=team_owned) | Q(id__in=team_shared))


def _roles_giving(permission: str) -> list[str]:
    return [role for role in ROLES if permission in ROLE_PERMISSIONS[role]]


def _check_permission(permission: str) -> None:
    if permission not in PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}; expected one of {PERMISSIONS}")


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
        "pipeline_id", "pipeline__owner_id", "pipeline__team_id", "change_token", "pipeline__change_token").first()
    if row is None:
        return None
    pipeline_id, owner_id, team_id, change_token, pipeline_change_token = row
    permissions = pipeline_permissions(user, Pipeline(pk=pipeline_id, owner_id=owner_id, team_id=team_id))
    return AccessToRun(int(run_pk), pipeline_id, permissions, change_token, pipeline_change_token)


def access_to_pipeline(user, pipeline_pk) -> AccessToPipeline | None:
    """What ``user`` may do with pipeline ``pipeline_pk`` (None: no such pipeline), with its change tokens."""
    row = Pipeline.objects.filter(pk=pipeline_pk).values_list(
        "owner_id", "team_id", "change_token", "runs_change_token").first()
    if row is None:
        return None
    owner_id, team_id, change_token, runs_change_token = row
    permissions = pipeline_permissions(user, Pipeline(pk=pipeline_pk, owner_id=owner_id, team_id=team_id))
    return AccessToPipeline(int(pipeline_pk), permissions, change_token, runs_change_token)


def pipeline_permissions(user, pipeline: Pipeline) -> frozenset[str]:
    """What ``user`` may do with ``pipeline``: a subset of view, edit, run, own."""
    if not _is_active(user):
        return frozenset()
    if user.is_superuser or (pipeline.team_id is None and pipeline.owner_id == user.id):
        return frozenset(PERMISSIONS)
    role = role_on(user, pipeline)
    granted: set[str] = set(ROLE_PERMISSIONS[role]) if role else set()
    for share in PipelineShare.objects.filter(pipeline_id=pipeline.pk, group__user=user):
        granted.add(VIEW)
        if share.can_edit:
            granted.add(EDIT)
        if share.can_run:
            granted.add(RUN)
    return frozenset(granted)


def role_on(user, pipeline: Pipeline) -> str | None:
    """The strongest team role ``user`` holds on ``pipeline`` (``studio.teams.ROLES``): from the team that owns it,
    or a team it is shared with (capped by the share's role); admin for its owner and superusers; None else.

    For apps whose rules name a role rather than a permission (an approval that needs an operator
    of the pipeline: ``at_least(role_on(user, pipeline), "operator")``). Group shares give no role."""
    return role_and_team(user, pipeline)[0]


def role_and_team(user, pipeline: Pipeline) -> tuple[str | None, str | None]:
    """:func:`role_on`'s role and the name of the team that gives it (None for its owner, a superuser, or no
    role): what the UI tells a member who may not do something ("a viewer in team payments")."""
    if not _is_active(user):
        return None, None
    if user.is_superuser or (pipeline.team_id is None and pipeline.owner_id == user.id):
        return _ADMIN, None
    found: list[tuple[str, str]] = []
    if pipeline.team_id is not None:
        found += TeamMembership.objects.filter(team_id=pipeline.team_id, user=user).values_list("role", "team__name")
    for share_role, member_role, team in TeamMembership.objects.filter(
            user=user, team__shares__pipeline_id=pipeline.pk).values_list("team__shares__role", "role", "team__name"):
        found.append((lesser(share_role, member_role), team))
    return max(found, key=lambda pair: ROLES.index(pair[0]), default=(None, None))


def holds_role(user, pipeline: Pipeline, weakest: str) -> bool:
    """Whether ``user`` holds ``weakest`` or a stronger role on ``pipeline`` (see :func:`role_on`)."""
    return at_least(role_on(user, pipeline), weakest)


USE, MANAGE = "use", "manage"
TEAM_THING_PERMISSIONS = (VIEW, USE, MANAGE)
_TEAM_THING_ROLES = {VIEW: "viewer", USE: "editor", MANAGE: "admin"}
"""What a team's role gives on a thing the team owns that is not a pipeline (a connection profile): a viewer
sees it, an editor (and an operator) uses it in their pipelines, tests and browses it, an admin changes,
shares and deletes it. Its creator holds no more than their role, as with a team's pipelines."""


def teams_with(user, permission: str) -> QuerySet:
    """The ids of the teams on whose things ``user`` holds ``permission`` (view, use, manage), for a filter."""
    if permission not in TEAM_THING_PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}; expected one of {TEAM_THING_PERMISSIONS}")
    if not _is_active(user):
        return Team.objects.none().values("id")
    if user.is_superuser:
        return Team.objects.values("id")
    return TeamMembership.objects.filter(user=user, role__in=roles_from(_TEAM_THING_ROLES[permission])).values(
        "team_id")


def may_on_team_thing(user, team_id: int, permission: str) -> bool:
    """Whether ``user`` holds ``permission`` on a thing team ``team_id`` owns (see :func:`teams_with`)."""
    if permission not in TEAM_THING_PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}; expected one of {TEAM_THING_PERMISSIONS}")
    if not _is_active(user):
        return False
    return user.is_superuser or at_least(role_in(user, team_id), _TEAM_THING_ROLES[permission])


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
    _check_permission(permission)
    return permission in pipeline_permissions(user, pipeline)
