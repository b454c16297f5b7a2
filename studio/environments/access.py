"""Who sees and uses which environment and secret, and who decides a promotion.

An environment is used (runs started in it, promotions asked into it, its parameters changed) by its
owner. A promotion into one that requires approval is decided by a user who holds the environment's
``approval_role`` (or a stronger one) on the promoted pipeline, as ``studio.access`` says roles are held
(the pipeline's team, a team it is shared with; its owner and superusers hold every role), never by the
user who asked. Those users see the promotion and the environment it goes into; anyone else gets a 404,
as if neither existed. A secret is its owner's alone: only their runs fill it in, and nobody reads it back.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet

from studio.access import holds_role, pipelines_with_role, role_on
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
    return Environment.objects.filter(Q(owner=user) | Q(pk__in=approvable)).distinct()


def environments_usable_by(user) -> QuerySet[Environment]:
    return Environment.objects.filter(owner=user) if _active(user) else Environment.objects.none()


def promotions_visible_to(user) -> QuerySet[Promotion]:
    if not _active(user):
        return Promotion.objects.none()
    return Promotion.objects.filter(Q(target__owner=user) | Q(requested_by=user) | _approvable(user)).distinct()


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
    return Secret.objects.filter(owner=user) if _active(user) else Secret.objects.none()
