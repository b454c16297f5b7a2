"""Teams and their roles: what each role means, and who holds which role where.

A role is a member's standing in a team. Each holds what the one before holds, and more:

- ``viewer``: sees the team's pipelines, their versions, runs, checkpoints, savepoints, taps'
  records, files and Git bindings (the ``view`` permission);
- ``editor``: also saves versions, rolls back, binds, pulls and resolves Git (``edit``);
- ``operator``: also starts, stops, cancels, rescales and restores runs and takes savepoints (``run``);
- ``admin``: also deletes pipelines, shares them and moves them between owners (``own``), and
  manages the team itself: its name, its members and their roles.

A team sees only itself: who is not a member gets no answer about it. ``studio.access``
turns roles into pipeline permissions; this module answers the team-side questions, for
REST and for other apps (an environment owned by a team, an approval that needs an operator).
"""
from __future__ import annotations

from django.db.models import QuerySet

from studio.models import Team, TeamMembership, TeamRole

ROLES: tuple[str, ...] = tuple(TeamRole.values)  # weakest first
"""The roles, each holding what the ones before it hold."""

ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    TeamRole.VIEWER: frozenset({"view"}),
    TeamRole.EDITOR: frozenset({"view", "edit"}),
    TeamRole.OPERATOR: frozenset({"view", "edit", "run"}),
    TeamRole.ADMIN: frozenset({"view", "edit", "run", "own"}),
}
"""The pipeline permissions (``studio.access``) each role gives on the pipelines its team owns."""


def _is_active(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def at_least(role: str | None, weakest: str) -> bool:
    """Whether ``role`` holds everything ``weakest`` holds (None, no role, holds nothing)."""
    if weakest not in ROLES:
        raise ValueError(f"unknown role {weakest!r}; expected one of {ROLES}")
    return role in ROLES and ROLES.index(role) >= ROLES.index(weakest)


def roles_from(weakest: str) -> list[str]:
    """``weakest`` and every role above it."""
    return [role for role in ROLES if at_least(role, weakest)]


def lesser(first: str, second: str) -> str:
    """The weaker of two roles (a team share's role caps its members' own)."""
    return min(first, second, key=ROLES.index)


def role_in(user, team: Team | int) -> str | None:
    """``user``'s role in ``team``, or None when they are no (active) member."""
    if not _is_active(user):
        return None
    team_id = team.pk if isinstance(team, Team) else team
    return TeamMembership.objects.filter(team_id=team_id, user=user).values_list("role", flat=True).first()


def teams_of(user, weakest: str = TeamRole.VIEWER) -> QuerySet[Team]:
    """The teams ``user`` belongs to with ``weakest`` or a stronger role (all of them for a superuser)."""
    if not _is_active(user):
        return Team.objects.none()
    if user.is_superuser:
        return Team.objects.all()
    return Team.objects.filter(memberships__user=user, memberships__role__in=roles_from(weakest))


def may_manage(user, team: Team) -> bool:
    """Whether ``user`` may rename ``team``, delete it, and add, change or remove its members."""
    return _is_active(user) and (user.is_superuser or at_least(role_in(user, team), TeamRole.ADMIN))
