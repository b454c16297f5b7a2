"""Stop with savepoint while async lookups are in flight: drained, or kept in the savepoint."""
from __future__ import annotations

import json
import threading

import pytest

from engine.cluster.local import LocalCluster
from tests.engine.async_io.support import FakeService
from tests.engine.lifecycle.support import committed
from tests.support import wait_until

RECORDS = 1500


@pytest.fixture(scope="module")
def service():
    fake = FakeService()
    fake.latency_s, fake.jitter_s = 0.002, 0.006
    yield fake
    fake.close()


def definition(service, sink_dir, chained: bool) -> dict:
    edges = [{"id": "in", "from": "gen", "to": "lookup"}, {"id": "out", "from": "lookup", "to": "sink"}]
    if not chained:
        edges[0]["partitioning"] = "rebalance"
    return {"format": 1, "name": "stop-async", "parallelism": 2,
            "checkpointing": {"interval_ms": 50, "timeout_ms": 20000}, "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": RECORDS, "rate": 1500}},
                      {"id": "lookup", "type": "lookup.http",
                       "params": {"url": service.url(), "capacity": 16, "field": "answer"}},
                      {"id": "sink", "type": "sink.file", "params": {"path": str(sink_dir)}}],
            "edges": edges}


@pytest.mark.parametrize("drain", [False, True], ids=["no-drain", "drain"])
@pytest.mark.parametrize("chained", [True, False], ids=["chained", "rebalanced"])
def test_stop_then_restore_emits_every_lookup_exactly_once(service, tmp_path, drain, chained):
    service.reset()
    service.latency_s, service.jitter_s = 0.002, 0.006
    checkpointed = threading.Event()

    def on_event(event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed":
            checkpointed.set()

    cluster = LocalCluster(config={"batch_size": 20})
    job = definition(service, tmp_path / "out", chained)
    handle = cluster.submit(job, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert checkpointed.wait(30)
    wait_until(lambda: committed(tmp_path / "out"), 30, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=drain).result(30)
    assert handle.wait(30).status == "FINISHED"
    stopped = committed(tmp_path / "out")
    assert 0 < len(stopped) < RECORDS and len(stopped) == len({json.dumps(r) for r in stopped})
    result = cluster.run(job, restore=location, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    records = committed(tmp_path / "out")
    assert sorted(record[0] for record in records) == list(range(RECORDS)), "nothing lost, nothing doubled"
