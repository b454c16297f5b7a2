"""Which profiles a user may use, how a node names them, and the address each one stands for.

A user may use the profiles they own and those shared with them or with one of their groups, and
those of their teams where their role allows (an editor and up; a viewer only sees them). A node
names one as ``connection:<name>`` (the user's own profile of that name, else the one shared with
them or their team's), ``connection:<owner>/<name>`` or ``connection:team:<team>/<name>``. :func:`connections_of` gives the core's
policies (``studio.locations.policy_for``) these names with the addresses, secrets included:
the reference is resolved and its address checked against the grants of whoever uses it, at
the moment they use it (validation, preview, a run's start).
"""
from __future__ import annotations

from urllib.parse import quote, unquote, urlsplit, urlunsplit

from django.db.models import Q, QuerySet

from studio.access import MANAGE, USE, VIEW, may_on_team_thing, teams_with
from studio.connections.models import ConnectionKind, ConnectionProfile
from studio.secret_box import unseal
from studio.location_policy import CONNECTION_PREFIX

TEAM_PREFIX = "team:"
"""``connection:team:<team>/<name>`` names a team's profile (no user name holds a ':')."""


def profiles_usable_by(user) -> QuerySet[ConnectionProfile]:
    """The profiles ``user`` may use: their own (while no team owns it), those shared with them (directly or
    through a group), and those of their teams where their role gives use (``studio.access.teams_with``)."""
    return _profiles(user, USE)


def profiles_visible_to(user) -> QuerySet[ConnectionProfile]:
    """The profiles ``user`` sees: those they may use, and those of teams they are a viewer of."""
    return _profiles(user, VIEW)


def _profiles(user, permission: str) -> QuerySet[ConnectionProfile]:
    if user is None or not user.is_authenticated or not user.is_active:
        return ConnectionProfile.objects.none()
    return ConnectionProfile.objects.filter(
        Q(owner=user, team__isnull=True) | Q(shares__user=user) | Q(shares__group__user=user)
        | Q(team__in=teams_with(user, permission))).distinct().select_related("owner", "team")


def may_manage(user, profile: ConnectionProfile) -> bool:
    """Whether ``user`` may change, share or delete ``profile``: its owner while no team owns it, else a team admin."""
    if profile.team_id is not None:
        return may_on_team_thing(user, profile.team_id, MANAGE)
    return profile.owner_id == getattr(user, "pk", None)


def reference_of(profile: ConnectionProfile, user) -> str:
    """How ``user``'s nodes name ``profile``: by its name when it is theirs, ``team:<team>/<name>`` when a team
    owns it, else with its owner's name."""
    if profile.team_id is not None:
        return f"{CONNECTION_PREFIX}{TEAM_PREFIX}{profile.team.name}/{profile.name}"
    if profile.owner_id == getattr(user, "pk", None):
        return f"{CONNECTION_PREFIX}{profile.name}"
    return f"{CONNECTION_PREFIX}{profile.owner.get_username()}/{profile.name}"


def connections_of(user) -> dict[str, dict]:
    """``{name: {"kind", "address"}}`` for every name a node of ``user`` may give a profile (the address with
    its password); a bare name that several shared profiles carry maps to ``{"kind": None}``."""
    found: dict[str, dict] = {}
    shared_names: dict[str, list[ConnectionProfile]] = {}
    for profile in profiles_usable_by(user):
        entry = {"kind": profile.kind, "address": full_address(profile)}
        if profile.team_id is not None:
            found[f"{TEAM_PREFIX}{profile.team.name}/{profile.name}"] = entry
            shared_names.setdefault(profile.name, []).append(profile)
            continue
        found[f"{profile.owner.get_username()}/{profile.name}"] = entry
        if profile.owner_id == user.pk:
            found[profile.name] = entry
        else:
            shared_names.setdefault(profile.name, []).append(profile)
    for name, profiles in shared_names.items():
        if name not in found:
            found[name] = ({"kind": profiles[0].kind, "address": full_address(profiles[0])} if len(profiles) == 1
                           else {"kind": None})
    return found


def full_address(profile: ConnectionProfile) -> str:
    """The address a connector is given: the stored one with the password put back."""
    return with_password(profile.kind, profile.address, unseal(profile.secret))


def with_password(kind: str, address: str, password: str) -> str:
    if not password or kind == ConnectionKind.KAFKA:
        return address
    parts = urlsplit(address)
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}"))  # user: stored quoted


def split_password(kind: str, address: str) -> tuple[str, str]:
    """``(address without its password, the password)`` of an address a user typed."""
    if kind == ConnectionKind.KAFKA:
        return address, ""
    parts = urlsplit(address)
    if parts.password is None:
        return address, ""
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{quote(unquote(user), safe='')}@{host}" if user else host
    return urlunsplit(parts._replace(netloc=netloc)), unquote(parts.password)
