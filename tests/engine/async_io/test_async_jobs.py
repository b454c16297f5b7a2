"""Async lookups inside whole jobs: watermark segments keep event-time windows exact."""
from __future__ import annotations

from collections import Counter

from engine.cluster.local import LocalCluster

RECORDS = 900


def test_unordered_lookups_never_make_records_late_for_a_window(service, tmp_path):
    """Unordered output may reorder records, but never across a watermark: no record is late."""
    service.jitter_s = 0.005
    definition = {
        "format": 1, "name": "async-windows", "parallelism": 1, "checkpointing": {"interval_ms": 100},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": RECORDS}},
            {"id": "records", "type": "transform.map", "params": {"expression": '{"k": x % 3, "ts": x}'}},
            {"id": "time", "type": "transform.watermark", "params": {"timestamp": 'x["ts"]'}},
            {"id": "lookup", "type": "lookup.http",
             "params": {"url": service.url("x['ts']"), "output_mode": "unordered", "capacity": 20}},
            {"id": "count", "type": "window.tumbling",
             "params": {"size_ms": 100, "function": "count", "value": 'x["value"]["value"]'}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1000}},
        ],
        "edges": [
            {"id": "e1", "from": "gen", "to": "records"}, {"id": "e2", "from": "records", "to": "time"},
            {"id": "e3", "from": "time", "to": "lookup"},
            {"id": "e4", "from": "lookup", "to": "count", "partitioning": "hash", "key": 'x["k"]'},
            {"id": "e5", "from": "count", "to": "out"},
        ],
    }
    result = LocalCluster(config={"batch_size": 32}).run(definition, timeout=60, checkpoint_dir=str(tmp_path))
    assert result.status == "FINISHED", result.failure
    expected = Counter()
    for x in range(RECORDS):
        expected[(x % 3, (x // 100 + 1) * 100)] += 1
    windows = {(key, end): count for key, end, count in result.collected["out"]}
    assert windows == dict(expected)
