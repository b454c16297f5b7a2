"""Visible latency of exactly-once sinks: what arrives at a two-phase-commit sink (and every latency
marker that reaches it) is timed until the commit that makes it readable outside, per sink subtask.
A sink that writes at once has none. Both deployments; the bookkeeping itself on a given clock."""
from __future__ import annotations

import pytest

from engine.runtime.operators.visible_latency import MAX_ENTRIES, VisibleLatency
from tests.builders import edge, node, pipeline
from tests.engine.runtime.test_latency_markers import TIMEOUT_S, MetricsWatch
from tests.support import wait_until

INTERVAL_MS = 400
"""The checkpoint interval: a transaction is open about this long, so its first records wait about this long."""


def test_every_sink_subtask_reports_how_long_its_records_and_markers_waited_for_the_commit(deployment, tmp_path):
    job = pipeline([node("gen", "source.datagen", rate=2000), node("shape", "transform.map", expression="x + 1"),
                    node("files", "sink.file", path=str(tmp_path / "out")), node("seen", "sink.collect", max_records=10)],
                   [edge("gen", "shape", "rebalance"), edge("shape", "files"), edge("shape", "seen")],
                   parallelism=2, interval_ms=INTERVAL_MS, latency_tracking={"interval_ms": 20})
    watch = MetricsWatch()
    handle = deployment.submit(job, checkpoint_dir=str(tmp_path / "c"), on_event=watch, timeout=TIMEOUT_S)
    try:
        files = wait_until(lambda: _committed_thrice(watch.operator("files")), 90,
                           "both sink subtasks to report the visible latency of three commits, markers included")
        seen = watch.operator("seen")
    finally:
        handle.cancel()
        handle.wait(60)
    for subtask in files:
        visible, markers = subtask["visible_latency"], subtask["source_visible_latency"]
        assert 0 <= visible["p50_ms"] <= visible["p99_ms"] <= visible["max_ms"]
        assert 0 < visible["records"] <= subtask["records_in"]
        # the first records of a transaction wait for the whole checkpoint interval, and then for the commit
        assert visible["p99_ms"] >= INTERVAL_MS / 2, visible
        assert markers["sources"].keys() <= {"gen#0", "gen#1"} and markers["markers"] > 0
        assert markers["p99_ms"] >= INTERVAL_MS / 2, markers
        assert markers["max_ms"] >= subtask["latency"]["p50_ms"], "a marker waits at the sink for the commit too"
    assert seen and not [figures for figures in seen if "visible_latency" in figures or "source_visible_latency"
                         in figures], "a sink that writes at once has nothing to wait for"


def _committed_thrice(subtasks: list[dict]) -> list[dict] | None:
    ready = [figures for figures in subtasks if (figures.get("visible_latency") or {}).get("commits", 0) >= 3
             and figures.get("source_visible_latency") and figures.get("latency")]
    return ready if len(ready) == 2 else None


class Clock:
    def __init__(self, now_ms: float = 0.0):
        self.now_ms = now_ms

    def __call__(self) -> float:
        return self.now_ms


def test_what_arrives_waits_for_the_commit_of_its_checkpoint_or_of_a_later_one_when_it_was_aborted():
    clock = Clock()
    visible = VisibleLatency(clock_ms=clock)
    visible.arrived(10)                  # at 0 ms: goes into checkpoint 1's transaction
    clock.now_ms = 100.0
    visible.marker_reached("gen#0", 60.0)
    visible.pre_committed(1)             # checkpoint 1 will be aborted
    clock.now_ms = 200.0
    visible.arrived(30)                  # checkpoint 2's
    visible.pre_committed(2)
    clock.now_ms = 300.0
    visible.arrived(5)                   # still open at the commit below: not visible yet
    visible.committed(0)
    assert visible.figures() == {}, "nothing is visible before its checkpoint's commit"
    clock.now_ms = 500.0
    visible.committed(2)                 # covers the aborted 1 too
    figures = visible.figures()
    assert figures["visible_latency"] == {"p50_ms": 300.0, "p99_ms": 500.0, "max_ms": 500.0, "records": 40,
                                          "commits": 1}
    assert figures["source_visible_latency"]["p50_ms"] == 440.0
    assert figures["source_visible_latency"]["sources"] == {"gen#0": {"p50_ms": 440.0, "p99_ms": 440.0, "markers": 1}}
    visible.pre_committed(3)
    clock.now_ms = 600.0
    visible.committed(3)
    assert visible.figures()["visible_latency"]["records"] == 45
    assert visible.figures()["visible_latency"]["max_ms"] == 500.0


def test_a_long_transaction_keeps_a_bounded_number_of_arrival_entries_and_its_records():
    clock = Clock()
    visible = VisibleLatency(clock_ms=clock)
    for moment in range(10 * MAX_ENTRIES):
        clock.now_ms = float(moment * 2)
        visible.arrived(1)
        visible.arrived(1)                # the same millisecond: the same entry
    assert len(visible._open.arrivals) <= MAX_ENTRIES
    visible.pre_committed(1)
    clock.now_ms = 20.0 * MAX_ENTRIES
    visible.committed(1)
    figures = visible.figures()["visible_latency"]
    assert figures["records"] == 20 * MAX_ENTRIES
    # arrivals were uniform over the transaction: the median waited about half of it
    assert figures["p50_ms"] == pytest.approx(10.0 * MAX_ENTRIES, rel=0.05)
