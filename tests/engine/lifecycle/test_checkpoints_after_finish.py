"""Streaming jobs whose inputs end: EndOfData, checkpoints after tasks finished, finished vertices."""
from __future__ import annotations

import threading

from engine.checkpoint.storage import load_metadata
from engine.cluster.local import LocalCluster
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import as_counter, checkpoint_events, committed, expected_counts, keyed_count


def test_bounded_input_in_streaming_mode_commits_everything(tmp_path):
    result = LocalCluster(config={"batch_size": 50}).run(
        keyed_count(tmp_path / "out", count=3000), timeout=60, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert as_counter(committed(tmp_path / "out")) == expected_counts(3000)
    statuses = [{s["task"]: s["status"] for s in event["subtasks"]} for event in checkpoint_events(result.events)]
    final = [s for s in statuses if s.get("count#0") == s.get("count#1") == "completed"
             and all(s.get(gen, "finished") == "finished" for gen in ("gen#0", "gen#1"))]
    assert final, "a checkpoint after both sources finished, taken by the sinks: it commits their last data"


def test_checkpoints_go_on_after_a_branch_finished_and_a_restore_skips_it(tmp_path):
    """A bounded and a slow source feed one sink; the bounded one finishes early."""
    definition = pipeline(
        [node("bounded", "source.datagen", count=50), node("tag_b", "transform.map", expression='["b", x]'),
         node("slow", "source.datagen", count=600, rate=600), node("tag_s", "transform.map", expression='["s", x]'),
         node("both", "transform.union"), node("sink", "sink.file", path=str(tmp_path / "out"))],
        [edge("bounded", "tag_b"), edge("slow", "tag_s"), edge("tag_b", "both", "rebalance"),
         edge("tag_s", "both", "rebalance"), edge("both", "sink")], interval_ms=40)
    bounded_done = threading.Event()

    def on_event(event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed" and not bounded_done.is_set():
            if load_metadata(event["external_path"])["vertices"]["bounded"]["finished"] == [0]:
                bounded_done.set()

    cluster = LocalCluster(config={"batch_size": 10})
    handle = cluster.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert bounded_done.wait(30), "no checkpoint completed after the bounded source finished"
    location = handle.stop_with_savepoint().result(20)
    first = handle.wait(20)
    assert first.status == "FINISHED"
    assert load_metadata(location)["vertices"]["bounded"]["finished"] == [0]
    second = cluster.run(definition, restore=location, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert second.status == "FINISHED", second.failure
    records = committed(tmp_path / "out")
    assert as_counter(records) == as_counter([["b", x] for x in range(50)] + [["s", x] for x in range(600)])
    restored_events = checkpoint_events(second.events)
    assert restored_events, "the restored job took checkpoints"
    assert all(s["status"] == "finished" for e in restored_events for s in e["subtasks"] if s["vertex"] == "bounded"), \
        "a vertex restored as finished takes no part in checkpoints"
