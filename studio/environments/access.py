"""Who sees and uses which environment and secret, and who decides a promotion.

A personal environment is used (runs started in it, promotions asked into it, its parameters changed) by
its owner. A team's environment is seen by the team's members, used with the team's pipelines by those
whose role uses the team's things (an editor and up, ``studio.access.teams_with``; starting a run there
still takes the run permission on the pipeline), and changed or deleted by the team's admins. A promotion
into one that requires approval is decided by a user who holds the environment's ``approval_role`` (or a
stronger one) on the promoted pipeline, as ``studio.access`` says roles are held (the pipeline's team, a
team it is shared with; its owner and superusers hold every role), never by the user who asked. Those
users see the promotion and the environment it goes into; anyone else gets a 404, as if neither existed.

A personal secret is its owner's alone: only their runs fill it in. A team's secret is filled into the
team's pipelines for the members whose role uses the team's things, seen (by name) by every member, and
replaced or deleted by the team's admins. Nobody reads a secret back. On a team's pipeline a name the team
has a secret of means the team's, whoever starts the run; elsewhere it means the user's own.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet

from studio.access import MANAGE, USE, VIEW, holds_role, may_on_team_thing, pipelines_with_role, role_on, teams_with
from studio.environments.models import Environment, Promotion, Secret
from studio.teams import ROLES


def _active(user) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def _approvable(user) -> Q:
    """The promotions ``user`` holds the approval role for: one subquery per role an environment may ask."""
    found = Q(pk__in=[])
    for role in ROLES:
        found |= Q(target__approval_role=role, pipeline__in=pipelines_with_role(user, role).values("id"))
    return Q(target__requires_approval=True) & found


def environments_visible_to(user) -> QuerySet[Environment]:
    if not _active(user):
        return Environment.objects.none()
    approvable = Promotion.objects.filter(_approvable(user)).values("target_id")
    return Environment.objects.filter(Q(owner=user, team__isnull=True) | Q(team__in=teams_with(user, VIEW))
                                      | Q(pk__in=approvable)).distinct()


def environments_usable_by(user, pipeline=None) -> QuerySet[Environment]:
    """The environments ``user`` may use: their own, and with ``pipeline`` (a team's) the team's environments
    where their role uses the team's things. Without a pipeline, their own only (what their files hold)."""
    if not _active(user):
        return Environment.objects.none()
    found = Q(owner=user, team__isnull=True)
    team_id = getattr(pipeline, "team_id", None)
    if team_id is not None and may_on_team_thing(user, team_id, USE):
        found |= Q(team_id=team_id)
    return Environment.objects.filter(found)


def environment_for(user, pipeline, name: str) -> Environment | None:
    """The environment ``name`` means for ``user`` working with ``pipeline``: on a team's pipeline the team's
    environment of that name, if the user may use it, before their own."""
    found = list(environments_usable_by(user, pipeline).filter(name=name))
    return min(found, key=lambda environment: environment.team_id is None, default=None)


def may_change_environment(user, environment: Environment) -> bool:
    """Its owner while no team owns it, else an admin of the team."""
    if environment.team_id is not None:
        return may_on_team_thing(user, environment.team_id, MANAGE)
    return _active(user) and environment.owner_id == user.pk


def promotions_visible_to(user) -> QuerySet[Promotion]:
    if not _active(user):
        return Promotion.objects.none()
    return Promotion.objects.filter(Q(target__owner=user, target__team__isnull=True)
                                    | Q(target__team__in=teams_with(user, VIEW)) | Q(requested_by=user)
                                    | _approvable(user)).distinct()


def may_approve(user, promotion: Promotion) -> str | None:
    """Why ``user`` may not decide ``promotion`` (None: they may), checked through ``studio.access``."""
    if promotion.requested_by_id == user.pk:
        return "the user who asked for a promotion may not approve it: a second user must"
    target = promotion.target
    if not holds_role(user, promotion.pipeline, target.approval_role):
        held = role_on(user, promotion.pipeline)
        return (f"deciding a promotion into {target.name!r} needs the {target.approval_role} role (or a stronger one) "
                f"on pipeline {promotion.pipeline.name!r}; you hold {f'the {held} role' if held else 'no role'} there")
    return None


def secrets_of(user) -> QuerySet[Secret]:
    """``user``'s own secrets (no team's)."""
    return Secret.objects.filter(owner=user, team__isnull=True) if _active(user) else Secret.objects.none()


def secrets_visible_to(user) -> QuerySet[Secret]:
    """Their own secrets and those of every team they are a member of (names only ever)."""
    if not _active(user):
        return Secret.objects.none()
    return Secret.objects.filter(Q(owner=user, team__isnull=True) | Q(team__in=teams_with(user, VIEW)))


def may_manage_secret(user, secret: Secret) -> bool:
    """Its owner while no team owns it, else an admin of the team."""
    if secret.team_id is not None:
        return may_on_team_thing(user, secret.team_id, MANAGE)
    return _active(user) and secret.owner_id == user.pk


def secrets_usable_by(user, pipeline=None) -> dict[str, Secret]:
    """``{name: secret}`` that a definition of ``pipeline`` executed for ``user`` fills in: their own, and on a
    team's pipeline the team's (which win) where their role uses the team's things."""
    if not _active(user):
        return {}
    found = {secret.name: secret for secret in secrets_of(user)}
    team_id = getattr(pipeline, "team_id", None)
    if team_id is not None and may_on_team_thing(user, team_id, USE):
        found.update({secret.name: secret for secret in Secret.objects.filter(team_id=team_id)})
    return found
