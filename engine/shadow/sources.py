"""Sources of a shadow run: the same input as production, without moving production's positions.

A shadow run restores production's source positions and reads on from there; what it must
never do is move what production reads by:

- ``source.postgres_cdc``: the replication slot. Before the shadow's snapshot is taken,
  :func:`prepare_source_forks` copies production's slot (``pg_copy_logical_replication_slot``,
  a persistent copy at the slot's position, which is at or before any snapshot taken after
  it); the shadow job reads and advances only the copy (``source_forks`` in the job's
  configuration), and :func:`release_source_forks` drops it.
- ``source.redis_stream`` with a consumer group: the shadow reads as a group of its own,
  ``<group>-shadow-<token>``, created at the furthest position the snapshot's consumers
  reached (with one consumer, exactly where production's was; with several, entries the
  slower ones had not read yet are not re-read), and destroyed at release. Production's
  group gets no read and no ``XACK`` from the shadow.
- ``source.kafka``: no consumer group: offsets come from the snapshot and nothing is
  committed (``start: committed`` becomes its ``committed_fallback`` for partitions the
  snapshot does not have).
- Files, Parquet, datagen and Redis Streams without a group are read, never moved.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

SLOT_NAME_LIMIT = 63


@dataclass(frozen=True)
class SourceFork:
    """Something made for a shadow run's source that must be removed after it: a slot copy, a group."""

    node: str
    kind: str  # "postgres_slot" | "redis_group"
    url: str
    name: str
    stream: str | None = None

    def as_json(self) -> dict:
        return {"node": self.node, "kind": self.kind, "url": self.url, "name": self.name, "stream": self.stream}

    @classmethod
    def from_json(cls, data: dict) -> "SourceFork":
        return cls(str(data["node"]), str(data["kind"]), str(data["url"]), str(data["name"]), data.get("stream"))


def forked_slot_name(slot: str, token: str) -> str:
    return f"{slot}_shadow_{token}"[:SLOT_NAME_LIMIT]


def prepare_source_forks(definition: dict, token: str) -> list[SourceFork]:
    """Copy the replication slot of every CDC source of ``definition`` (before the shadow's snapshot is taken);
    the forks made. A failure drops what was made and raises ``ConfigurationError`` naming the node."""
    forks: list[SourceFork] = []
    try:
        for node in definition.get("nodes", []):
            params = node.get("params") or {}
            if node.get("type") == "source.postgres_cdc" and params.get("snapshot") != "only" and params.get("slot"):
                forks.append(_copy_slot(node, params["url"], params["slot"], forked_slot_name(params["slot"], token)))
    except Exception:
        release_source_forks(forks)
        raise
    return forks


def shadow_sources(definition: dict, token: str, snapshot: dict | None,
                   config: dict | None = None) -> tuple[dict, list[SourceFork]]:
    """``(definition, forks made)``: the sources of ``definition`` as a shadow reads them (see the module
    docstring); ``snapshot``: the metadata the shadow restores (a Redis group starts at its consumers' furthest
    position); ``config``: the job's configuration (its ``redis_url``)."""
    from engine.runtime.state.restore import TaskRestore

    nodes, made = [], []
    for node in definition.get("nodes", []):
        params = dict(node.get("params") or {})
        if node.get("type") == "source.kafka":
            params.pop("group", None)
            if params.get("start") == "committed":
                params["start"] = params.get("committed_fallback", "earliest")
        elif node.get("type") == "source.redis_stream" and params.get("group"):
            positions = TaskRestore(snapshot, 0, 1).written_operator_state(node["id"]) if snapshot else []
            start = _furthest([split.get("last_id") for lists in positions for split in lists.get("consumers", ())
                               if isinstance(split, dict)])
            params["group"] = f"{params['group']}-shadow-{token}"
            params["start_id"] = start
            made.append(_create_group(node, params, start, config or {}))
        nodes.append({**node, "params": params})
    return {**definition, "nodes": nodes}, made


def source_forks_config(forks: list[SourceFork]) -> dict:
    """The job configuration's ``source_forks``: ``{node id: {"slot": copy}}`` of the slot copies."""
    return {fork.node: {"slot": fork.name} for fork in forks if fork.kind == "postgres_slot"}


def release_source_forks(forks: list[SourceFork]) -> list[str]:
    """Drop every slot copy and destroy every group made for a shadow; what could not be removed, as messages."""
    problems = []
    for fork in forks:
        try:
            if fork.kind == "postgres_slot":
                _drop_slot(fork)
            elif fork.kind == "redis_group":
                _destroy_group(fork)
        except Exception as error:  # noqa: BLE001 - every fork is tried; the caller reports what is left
            problems.append(f"{fork.kind} {fork.name} of node {fork.node}: {error}")
    return problems


_STREAM_ID = re.compile(r"(\d{1,20})-(\d{1,20})")


def _furthest(ids: list) -> str:
    """The latest of stream entry ids (``0`` when there is none: the whole stream)."""
    parsed = [(int(match.group(1)), int(match.group(2))) for value in ids if isinstance(value, str)
              for match in [_STREAM_ID.fullmatch(value)] if match]
    if not parsed:
        return "0"
    milliseconds, sequence = max(parsed)
    return f"{milliseconds}-{sequence}"


def _copy_slot(node: dict, url: str, slot: str, copy: str) -> SourceFork:
    from engine.runtime.operators.base import ConfigurationError
    from engine.runtime.operators.connectors.postgres import connect, server_label

    with connect(node, url, autocommit=True) as connection:
        try:
            connection.execute("SELECT pg_copy_logical_replication_slot(%s, %s)", (slot, copy))
        except Exception as error:
            cause = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ConfigurationError(node, f"cannot copy replication slot {slot} at {server_label(url)} for the "
                                           f"shadow run: {cause}") from None
    return SourceFork(node["id"], "postgres_slot", url, copy)


def _drop_slot(fork: SourceFork) -> None:
    from engine.runtime.operators.connectors.postgres import connect

    with connect({"id": fork.node}, fork.url, autocommit=True) as connection:
        connection.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                           "WHERE slot_name = %s", (fork.name,))


def _create_group(node: dict, params: dict, start: str, config: dict) -> SourceFork:
    import redis

    from engine.runtime.operators.connectors.redis_stream import checked_client, redis_url

    url = redis_url(params, config)
    client = checked_client(node, url)
    try:
        client.xgroup_create(params["stream"], params["group"], id=start, mkstream=True)
    except redis.ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise
    finally:
        client.close()
    return SourceFork(node["id"], "redis_group", url, params["group"], params["stream"])


def _destroy_group(fork: SourceFork) -> None:
    from engine.runtime.operators.connectors.redis_stream import checked_client

    client = checked_client({"id": fork.node}, fork.url)
    try:
        client.xgroup_destroy(fork.stream, fork.name)
    finally:
        client.close()
