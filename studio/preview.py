"""Preview: run a definition in this process on a bounded sample and show what flows out of every node.

The definition is rewritten before it runs (``preview_pipeline``): batch mode, parallelism
1 (so records keep their order), no checkpoints, no restarts; unbounded or large sources
capped at ``limit`` records and rate limits dropped; every sink replaced by a collecting
sink (a preview writes nothing anywhere) and a collecting *tap* added after every other
node. The in-process cluster (``engine.cluster.local``) runs it with a time limit.

At most ``MAX_CONCURRENT`` previews run at once per web process; more are refused
(:class:`PreviewBusy`) rather than queued, so a burst cannot tie up every worker thread.
"""
from __future__ import annotations

import copy
import tempfile
import threading

from engine.spec import normalise_definition

TIMEOUT_S = 10.0
MAX_CONCURRENT = 2
TAP_PREFIX = "__preview__"
TAP_CAPACITY_FACTOR = 10  # a tap keeps the last limit × this many records; the first `limit` are shown

_running = threading.BoundedSemaphore(MAX_CONCURRENT)


class PreviewBusy(Exception):
    """Too many previews are running in this process."""


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


def preview_definition(definition: dict, limit: int = 100, timeout: float = TIMEOUT_S) -> dict:
    """Run the preview; ``{"status", "failure"?, "nodes": {node id: {"records", "count"}}}``."""
    from engine.cluster.local import LocalCluster

    prepared, taps = preview_pipeline(definition, limit)
    if not _running.acquire(blocking=False):
        raise PreviewBusy(f"{MAX_CONCURRENT} previews are running already; try again in a moment")
    try:
        with tempfile.TemporaryDirectory(prefix="studio-preview-") as checkpoints:
            result = LocalCluster().run(prepared, timeout=timeout, checkpoint_dir=checkpoints)
    finally:
        _running.release()
    answer = {
        "status": result.status,
        "nodes": {node_id: {"records": list(result.collected.get(tap, []))[:limit],
                            "count": int(result.counts.get(tap, 0))}
                  for node_id, tap in taps.items()},
    }
    if result.failure:
        answer["failure"] = result.failure
    return answer
