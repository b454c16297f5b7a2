"""Preview: run a definition in this process on a bounded sample and show what flows out of every node.

The definition is rewritten before it runs (``preview_pipeline``): batch mode, parallelism
1 (so records keep their order), no checkpoints, no restarts; unbounded or large sources
capped at ``limit`` records and rate limits dropped, sources with side effects read without
them (a Redis consumer group's stream plainly, a CDC source's tables once, with no slot); every
sink replaced by a collecting sink (a preview writes nothing anywhere) and a collecting *tap*
added after every other node. The engine runs it in process (``engine.api.InProcess``) with a time limit, in a
worker process of ``studio.processes.budget`` that is killed if it overruns the preview's budget
(at most two previews run at once; more are refused rather than queued).
"""
from __future__ import annotations

import copy
import tempfile

from engine.api import normalise_definition

TAP_PREFIX = "__preview__"
TAP_CAPACITY_FACTOR = 10  # a tap keeps the last limit × this many records; the first `limit` are shown


def preview_pipeline(definition: dict, limit: int) -> tuple[dict, dict[str, str]]:
    """Return the rewritten definition and ``{node id: id of the collect node that shows it}``."""
    prepared = copy.deepcopy(normalise_definition(definition))
    capacity = min(100_000, limit * TAP_CAPACITY_FACTOR)
    prepared.update(mode="batch", parallelism=1, name=f"preview of {prepared.get('name', 'pipeline')}",
                    checkpointing={**prepared["checkpointing"], "enabled": False},
                    restart={"strategy": "none", "attempts": 0, "delay_ms": 0})
    taps: dict[str, str] = {}
    extra_nodes, extra_edges = [], []
    for node in prepared["nodes"]:
        node["parallelism"] = 1
        params = node.setdefault("params", {})
        category = node["type"].split(".", 1)[0]
        if node["type"] == "source.datagen":
            count = params.get("count")
            params["count"] = limit if count is None else min(int(count), limit)
            params["rate"] = 0
        elif node["type"] == "source.redis_stream":
            params["bounded"] = True
            params["batch_size"] = min(int(params.get("batch_size", 500)), limit)
            params.pop("group", None)  # reading as the group would take entries from its consumers
        elif node["type"] == "source.kafka":
            params["bounded"] = True  # up to the ends the partitions have now; no checkpoint, so no commits
        elif node["type"] == "source.postgres_cdc":
            params["snapshot"] = "only"  # the rows as they are: no replication slot is created or moved
        if category == "sink":
            node.update(type="sink.collect", params={"max_records": capacity})
            taps[node["id"]] = node["id"]
            continue
        tap = f"{TAP_PREFIX}{node['id']}"
        taps[node["id"]] = tap
        extra_nodes.append({"id": tap, "type": "sink.collect", "params": {"max_records": capacity},
                            "parallelism": 1})
        extra_edges.append({"id": tap, "from": node["id"], "to": tap, "partitioning": "forward",
                            "exchange": "pipelined", "key": None})
    prepared["nodes"].extend(extra_nodes)
    prepared["edges"].extend(extra_edges)
    return prepared, taps


def run_preview(definition: dict, limit: int, timeout: float, grants=None) -> dict:
    """Run the preview in this process (a worker's), its connectors checking ``grants`` (``engine.api.Grants``)
    at every file they open and address they reach; ``{"status", "failure"?, "nodes": {node id: {"records",
    "count"}}}``."""
    from engine.api import InProcess, run

    prepared, taps = preview_pipeline(definition, limit)
    with tempfile.TemporaryDirectory(prefix="studio-preview-") as checkpoints:
        result = run(prepared, InProcess(), timeout=timeout, checkpoint_dir=checkpoints, grants=grants)
    answer = {
        "status": result.status,
        "nodes": {node_id: {"records": list(result.collected.get(tap, []))[:limit],
                            "count": int(result.counts.get(tap, 0))}
                  for node_id, tap in taps.items()},
    }
    if result.failure:
        answer["failure"] = result.failure
    return answer
