"""The storage locations a user may reach, as a policy, and what the studio does with it.

An administrator configures ``StorageLocation`` rows and grants them to users, groups or teams
(``LocationGrant``; ``all_users`` for everyone; a team's grant is its editors' and up).
:func:`policy_for` turns them into the Django-free ``studio.location_policy.Policy`` that
validation, previews (in the budgeted workers) and the run's driver check a definition against. This module also owns the two
rules that need the database: a sink target belongs to one pipeline unless its location is
shared (``SinkClaim``), and a snapshot may be restored by path only by someone who may run
its pipeline, or from a location granted to them.

Each pipeline has a workspace directory (``STUDIO_WORKSPACE_ROOT/pipeline-<id>``) where
its relative paths resolve; a definition not saved yet resolves them in the user's draft
workspace.
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from studio.location_policy import (KAFKA, PATH, POSTGRES, REDIS, Location, LocationRefused, Policy, Use,
                                   resolve_path, writes_location)
from studio.models import Checkpoint, LocationGrant, Pipeline, Run, SinkClaim, StorageLocation


ConnectionSource = Callable[[Any], dict]
_connection_sources: list[ConnectionSource] = []


def register_connection_source(source: ConnectionSource) -> None:
    """Let ``source(user)`` add the connection profiles ``user`` may use to every policy, as
    ``Policy.connections`` takes them. Filled by the connection profiles app (``studio.connections``)
    in its ``ready()``; without it a ``connection:`` parameter names nothing."""
    if source not in _connection_sources:
        _connection_sources.append(source)


def policy_for(user, pipeline: Pipeline | None = None) -> Policy:
    """What ``user`` may reach, with ``pipeline``'s workspace (the user's draft workspace when None) and
    the connection profiles they may use, as they are now."""
    connections: dict = {}
    for source in _connection_sources:
        connections.update(source(user))
    return Policy(tuple(granted_locations(user)), str(workspace_of(pipeline, user)), settings.REDIS_URL,
                  connections)


def workspace_of(pipeline: Pipeline | None, user=None) -> Path:
    root = Path(settings.STUDIO_WORKSPACE_ROOT)
    return root / (f"pipeline-{pipeline.pk}" if pipeline is not None else f"draft-user-{getattr(user, 'pk', 0)}")


def granted_locations(user) -> list[Location]:
    """The locations granted to ``user`` (directly, through a group, through a team they use the things of,
    or to all users), prefixes expanded. Asked again at every use: a member who left a team, or became a
    viewer in it, no longer gets its locations."""
    if user is None or not user.is_authenticated or not user.is_active:
        return []
    grants = LocationGrant.objects.filter(_grant_to(user))
    rows = StorageLocation.objects.filter(Q(all_users=True) | Q(pk__in=grants.values("location_id")))
    writable = {*grants.filter(can_write=True).values_list("location_id", flat=True),
                *(row.id for row in rows if row.all_users)}
    return [Location(row.name, row.kind, expand_prefix(row.prefix, user), row.id in writable, row.shared)
            for row in rows]


def _grant_to(user) -> Q:
    """The grants that are ``user``'s: to them, to one of their groups, or to a team where their role uses the
    team's things (an editor and up, ``studio.access.teams_with``)."""
    from studio.access import USE, teams_with

    return Q(user=user) | Q(group__user=user) | Q(team__in=teams_with(user, USE))


def may_write_location(user, location: StorageLocation) -> bool:
    """Whether ``user`` may write into ``location`` by their grants as they are now."""
    return location.all_users or LocationGrant.objects.filter(_grant_to(user), location=location,
                                                              can_write=True).exists()


def locations_granted_to(user):
    """The ``StorageLocation`` rows ``user`` may reach now (the rows :func:`granted_locations` expands)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return StorageLocation.objects.none()
    return StorageLocation.objects.filter(
        Q(all_users=True) | Q(pk__in=LocationGrant.objects.filter(_grant_to(user)).values("location_id")))


def expand_prefix(prefix: str, user) -> str:
    """``{user}`` becomes the user's name (their id when the name is not a safe directory name), and
    ``{data_dir}`` the studio's data directory."""
    name = user.get_username()
    if not re.fullmatch(r"[A-Za-z0-9@+_-][A-Za-z0-9@.+_-]*", name):
        name = f"user-{user.pk}"
    return prefix.replace("{data_dir}", str(settings.DATA_DIR)).replace("{user}", name)


# --- sinks --------------------------------------------------------------------------------------


def sink_uses(definition: dict, policy: Policy) -> list[Use]:
    """The sink targets of ``definition`` that resolve (the others are validation's problems already):
    a path sink's directory, and a Redis stream, PostgreSQL table or Kafka topic named with its server
    and database or cluster (``redis://host:port/db#stream``), so that two spellings of one target are
    one claim."""
    from engine.api import holds_reference, operator_spec

    from studio.location_policy import location_fields

    uses = []
    nodes = definition.get("nodes") if isinstance(definition, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        spec = operator_spec(node.get("type")) if isinstance(node, dict) and isinstance(node.get("type"), str) else None
        if not spec or not spec["sink"]:
            continue
        params = node.get("params") if isinstance(node.get("params"), dict) else {}
        node_id = str(node.get("id"))
        for name, kind in location_fields(spec):
            value = params.get(name)
            if not writes_location(spec, name) or holds_reference(value):
                continue  # a reference claims its target when a run fills it in
            if kind == PATH and isinstance(value, str) and value:
                use = _resolved_or_none(kind, value, policy, node_id, name)
                uses += [use] if use is not None else []
            elif kind in (REDIS, POSTGRES, KAFKA) and (value is None or isinstance(value, str)):
                use = _resolved_or_none(kind, value or "", policy, node_id, name)
                uses += _named_targets(use, spec, params) if use is not None else []
    return uses


def _resolved_or_none(kind: str, value: str, policy: Policy, node_id: str, name: str) -> Use | None:
    from studio.location_policy import resolve

    try:
        return resolve(kind, value, policy, node_id=node_id, field_=name, sink=True)
    except LocationRefused:
        return None


def _named_targets(server: Use, spec: dict, params: dict) -> list[Use]:
    """One use per ``x-sink-target`` parameter of a sink writing into ``server``: the stream or table
    as ``<server address>#<name>`` (a table without schema is in ``public``)."""
    uses = []
    for name, schema in spec["params_schema"]["properties"].items():
        target = params.get(name)
        if not schema.get("x-sink-target") or not isinstance(target, str) or not target or "${" in target:
            continue  # a reference is claimed when a run fills it in
        if server.kind == POSTGRES and "." not in target:
            target = f"public.{target}"
        uses.append(replace(server, field=name, value=f"{server.address}#{quote(target, safe='')}"))
    return uses


def sink_conflicts(pipeline: Pipeline | None, uses: list[Use]) -> list[dict]:
    """Problems for each sink target that another pipeline's sink already writes into."""
    problems = []
    for use in uses:
        if use.shared:
            continue
        others = _overlapping_claims(use.value)
        if pipeline is not None:
            others = others.exclude(pipeline=pipeline)
        other = others.first()
        if other is not None:
            problems.append({"node": use.node, "edge": None, "field": f"params.{use.field}",
                             "message": f"{use.value} is written by another pipeline's sink (at {other.target}); "
                                        "a sink location belongs to one pipeline unless it is shared"})
    return problems


def claim_sinks(pipeline: Pipeline, uses: list[Use]) -> list[dict]:
    """Make ``pipeline`` the owner of its sink targets (and release the ones it no longer writes);
    the problems when another pipeline owns one."""
    problems = sink_conflicts(pipeline, uses)
    if problems:
        return problems
    targets = {use.value: use for use in uses if not use.shared}
    try:
        with transaction.atomic():
            SinkClaim.objects.filter(pipeline=pipeline).exclude(target__in=list(targets)).delete()
            for target, use in targets.items():
                SinkClaim.objects.get_or_create(target=target, pipeline=pipeline, defaults={"node": use.node})
    except IntegrityError:  # claimed by another pipeline a moment ago
        return sink_conflicts(pipeline, list(targets.values())) or [
            {"node": None, "edge": None, "field": None, "message": "a sink target was just claimed by another "
                                                                   "pipeline; try again"}]
    return []


def _overlapping_claims(target: str):
    """Claims of ``target``, of a directory above it, or of anything below it."""
    return SinkClaim.objects.filter(Q(target=target) | Q(target__startswith=target.rstrip("/") + "/")
                                    | Q(target__in=_ancestors(target)))


def _ancestors(target: str) -> list[str]:
    scheme, sep, path = target.rpartition("://")
    head = f"{scheme}{sep}"
    parts = path.rstrip("/").split("/")
    return [head + ("/".join(parts[:end]) or "/") for end in range(1, len(parts))]


# --- snapshots --------------------------------------------------------------------------------


class SnapshotRefused(Exception):
    """A restore path or savepoint target the user may not use; ``status`` is 403 or 400."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


def check_savepoint_target(user, pipeline: Pipeline, target: str) -> str:
    """The resolved target directory of a savepoint, which must be writable for ``user``."""
    try:
        resolved, _, _ = resolve_path(target, policy_for(user, pipeline), write=True)
    except LocationRefused as refused:
        raise SnapshotRefused(str(refused), status=400)
    return resolved


def check_restore_path(user, path: str) -> str:
    """``path`` when ``user`` may restore from it: a snapshot of a pipeline they may run, or inside a
    location granted to them; otherwise :class:`SnapshotRefused` (403).

    A recorded snapshot (or run directory) counts only where the path reaches it without a link:
    ``mine/savepoint-3/theirs``, a link inside one's own savepoint to another user's, is not one's own
    savepoint. (``studio.runs.snapshots`` then checks who wrote what the path holds.)"""
    from studio.access import pipelines_runnable_by

    local = path.split("://", 1)[1] if path.startswith(("file://", "local://")) else path
    if ".." in local.split("/"):
        raise SnapshotRefused(f"{path}: '..' is not allowed in a restore path", status=400)
    spelled = os.path.normpath(local) if local.startswith("/") else path.rstrip("/")
    real = os.path.realpath(local) if local.startswith("/") else spelled
    candidates = {real, *_ancestors(real)}
    if local.startswith("/"):
        candidates |= {ancestor for ancestor in [spelled, *_ancestors(spelled)]
                       if _reached_without_links(spelled, ancestor, real)}
    else:
        candidates |= set(_ancestors(spelled))
    runnable = pipelines_runnable_by(user).values("id")
    spellings = _spellings(sorted(candidates))
    if Checkpoint.objects.filter(run__pipeline__in=runnable, external_path__in=spellings).exists():
        return path
    if Run.objects.filter(pipeline__in=runnable, checkpoint_dir__in=spellings).exists():
        return path
    try:
        resolve_path(path, Policy(tuple(granted_locations(user))))
        return path
    except LocationRefused:
        pass
    raise SnapshotRefused(f"{path} is not a snapshot of a pipeline you may run, nor inside a location granted "
                          "to you")


def _reached_without_links(path: str, ancestor: str, real: str) -> bool:
    """Whether ``path`` below ``ancestor`` passes no link: its real path is the ancestor's real path plus the
    rest as spelled (the ancestor itself may be reached through links, as a data directory may be)."""
    rest = os.path.relpath(path, ancestor)
    return os.path.normpath(os.path.join(os.path.realpath(ancestor), rest)) == real


def _spellings(paths: list[str]) -> list[str]:
    """Stored locations may be paths or file:// URLs, with or without a trailing slash."""
    return [spelling for path in paths for spelling in (path, path + "/", f"file://{path}", f"file://{path}/")]


# --- runs -------------------------------------------------------------------------------------


class LocationsRefused(Exception):
    """A run's definition reaches outside what its user may reach now; the message names each node and field."""

    def __init__(self, problems: list[dict]):
        self.problems = problems
        super().__init__("; ".join(f"node {problem['node']!r} {problem['field']}: {problem['message']}"
                                   if problem.get("node") else problem["message"] for problem in problems))


def resolve_run_locations(run: Run, definition: dict) -> dict:
    """``definition`` with its paths resolved for ``run``'s driver, checked again against the grants of the
    user who started it as they are now (a grant revoked after the run was saved or started counts), with
    symlinks resolved at this moment; :class:`LocationsRefused` otherwise."""
    from studio.location_policy import check_definition, resolved_definition

    policy = policy_for(run.created_by, run.pipeline)
    problems, uses = check_definition(definition, policy)
    problems += sink_conflicts(run.pipeline, sink_uses(definition, policy))
    if run.restore_path and run.restored_from_id is None:
        try:
            check_restore_path(run.created_by, run.restore_path)
        except SnapshotRefused as refused:
            problems.append({"node": None, "edge": None, "field": "restore_from.path", "message": str(refused)})
    if problems:
        raise LocationsRefused(problems)
    Path(policy.workspace).mkdir(parents=True, exist_ok=True)
    return resolved_definition(definition, uses)


def run_grants(run: Run):
    """What ``run``'s job may reach (``engine.api.Grants``), from the grants of the user who started it as they
    are now: its connectors check each file, directory and address against them when they use it."""
    from studio.location_policy import engine_grants

    return engine_grants(policy_for(run.created_by, run.pipeline))
