"""Pipeline definitions for tests, written as the editor writes them: nodes, edges between them.

    pipeline([node("gen", "source.datagen", count=100), node("sum", "aggregate.reduce"),
              node("out", "sink.collect")],
             [edge("gen", "sum", "hash", "x % 7"), edge("sum", "out")], parallelism=2)

``node`` takes the operator's parameters as keywords (``parallelism`` is the node's own);
``edge`` takes the partitioning and its key, other fields (``side``, ``exchange``,
``from_port``, ``id``) as keywords. An edge without an id is named after its ends
(``gen-sum``; ``gen-sum-2`` for a second edge between them).

``pipeline`` is a definition to run: checkpoints every ``interval_ms`` (50) that expire after
30 s, no restarts unless ``restart`` says, ``max_parallelism`` 64. ``definition_of`` is just the
graph and the fields given, with the engine's defaults for everything else (for tests of
those defaults, of planning and of validation).
"""
from __future__ import annotations

from collections import Counter


def node(node_id: str, type_: str = "transform.map", parallelism: int | None = None, **params) -> dict:
    result = {"id": node_id, "type": type_, "params": params}
    if parallelism is not None:
        result["parallelism"] = parallelism
    return result


def edge(source: str, target: str, partitioning: str = "forward", key: str | None = None, **fields) -> dict:
    result = {"from": source, "to": target, "partitioning": partitioning, **fields}
    if key is not None:
        result["key"] = key
    return result


def definition_of(nodes: list[dict], edges: list[dict], **fields) -> dict:
    return {"format": 1, "nodes": nodes, "edges": _named(edges), **fields}


def pipeline(nodes: list[dict], edges: list[dict], *, parallelism: int = 1, mode: str = "streaming",
             interval_ms: int = 50, checkpointing: dict | None = None, restart: dict | None = None,
             name: str = "test", **fields) -> dict:
    return definition_of(nodes, edges, name=name, mode=mode, parallelism=parallelism, max_parallelism=64,
                      checkpointing={"interval_ms": interval_ms, "timeout_ms": 30000, **(checkpointing or {})},
                      restart=restart or {"strategy": "none"}, **fields)


def _named(edges: list[dict]) -> list[dict]:
    seen: Counter = Counter()
    named = []
    for item in edges:
        seen[(item["from"], item["to"])] += 1
        count = seen[(item["from"], item["to"])]
        default = f"{item['from']}-{item['to']}" + (f"-{count}" if count > 1 else "")
        named.append({"id": default, **item})
    return named
