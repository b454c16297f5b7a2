"""Sinks redirected into a sandbox: every sink of a definition writes JSON lines into a directory of its own.

A run in a sandbox (a shadow run beside production, a saved test case) must never write
where the definition's sinks write: a table, a topic, a stream, a directory some other run
owns. :func:`redirect_sinks` replaces every sink node by a ``sink.file`` (exactly once: its
files are committed when a checkpoint completes) into ``<output_dir>/<node id>/``, with the
sink's parallelism, under a new node id: the original sink's state (its pending
transactions in production's target) is never restored into the sandbox, so the sandbox
commits and aborts nothing of production's.

What the original sink would have done with the records is kept beside them, in the
returned :class:`RedirectedSink`: its type, and how it keys rows (a PostgreSQL upsert's key
columns, a Kafka sink's key expression), so a diff can compare rows by key where the sink
has one (``outputs``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from engine.spec.catalog import operator_spec

ID_LIMIT = 100


@dataclass(frozen=True)
class RedirectedSink:
    """Where a sink of the definition writes in the sandbox, and what it was."""

    node: str
    """The sink's id in the definition."""
    sandbox_node: str
    """Its id in the sandboxed definition (a ``sink.file``)."""
    path: str
    type: str
    params: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"node": self.node, "sandbox_node": self.sandbox_node, "path": self.path, "type": self.type,
                "params": self.params}

    @classmethod
    def from_json(cls, data: dict) -> "RedirectedSink":
        return cls(str(data["node"]), str(data["sandbox_node"]), str(data["path"]), str(data["type"]),
                   dict(data.get("params") or {}))


def is_sink(node: dict) -> bool:
    spec = operator_spec(node.get("type", ""))
    return bool(spec and spec.get("sink"))


def prefixed_id(prefix: str, node_id: str) -> str:
    """``prefix:node_id``, within the definition's id length (a long id keeps its start and a digest)."""
    candidate = f"{prefix}:{node_id}"
    if len(candidate) <= ID_LIMIT:
        return candidate
    digest = hashlib.sha256(node_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{candidate[:ID_LIMIT - 13]}-{digest}"


def redirect_sinks(definition: dict, output_dir: str, prefix: str = "sandbox") -> tuple[dict, list[RedirectedSink]]:
    """``definition`` with every sink writing JSON lines into ``<output_dir>/<prefix>/<node id>`` (see the module
    docstring), and what each sink was."""
    nodes, edges = [], []
    renamed: dict[str, str] = {}
    redirected: list[RedirectedSink] = []
    for node in definition.get("nodes", []):
        if not is_sink(node):
            nodes.append(node)
            continue
        sandbox_id = prefixed_id(prefix, node["id"])
        path = f"{output_dir.rstrip('/')}/{prefix}/{_directory_name(node['id'])}"
        renamed[node["id"]] = sandbox_id
        redirected.append(RedirectedSink(node["id"], sandbox_id, path, node["type"], dict(node.get("params") or {})))
        sink = {"id": sandbox_id, "type": "sink.file", "params": {"path": path}}
        if "parallelism" in node:
            sink["parallelism"] = node["parallelism"]
        nodes.append(sink)
    for edge in definition.get("edges", []):
        edges.append({**edge, "to": renamed.get(edge["to"], edge["to"])} if edge["to"] in renamed else edge)
    return {**definition, "nodes": nodes, "edges": edges}, redirected


def _directory_name(node_id: str) -> str:
    """A directory name for a node id (ids may hold ``:``): its safe characters and a digest."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in node_id)[:60]
    return f"{safe}-{hashlib.sha256(node_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
