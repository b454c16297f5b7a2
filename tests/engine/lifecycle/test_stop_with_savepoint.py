"""Stop with savepoint on the in-process cluster: without drain, with drain, and when it fails."""
from __future__ import annotations

import threading

import pytest

from engine.cluster.local import LocalCluster
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import as_counter, checkpoint_events, committed, expected_counts, keyed_count
from tests.support import wait_until


def first_checkpoint_then(handle_events):
    event = threading.Event()

    def on_event(e):
        handle_events.append(e)
        if e.get("type") == "checkpoint" and e.get("event") == "completed":
            event.set()

    return event, on_event


def test_stop_without_drain_then_restore_continues_exactly_once(tmp_path):
    events: list = []
    completed, on_event = first_checkpoint_then(events)
    definition = keyed_count(tmp_path / "out", count=6000, rate=4000)
    cluster = LocalCluster(config={"batch_size": 40})
    handle = cluster.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert completed.wait(30)
    wait_until(lambda: committed(tmp_path / "out"), 30, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=False).result(20)
    first = handle.wait(20)
    assert first.status == "FINISHED", first.failure
    stop_event = next(e for e in checkpoint_events(first.events) if e["external_path"] == location)
    assert stop_event["checkpoint_type"] == "SYNC_SAVEPOINT" and stop_event["is_savepoint"]
    stopped = committed(tmp_path / "out")
    assert 0 < len(stopped) < 6000, "the stop comes before the bounded source ends"
    assert as_counter(stopped) <= expected_counts(6000)
    second = cluster.run(definition, restore=location, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert second.status == "FINISHED", second.failure
    assert as_counter(committed(tmp_path / "out")) == expected_counts(6000), "nothing lost, nothing doubled"


def windows_with_raw_copy(out_dir, raw_dir, count=3000, rate=1500):
    """datagen -> (raw copy to a file sink) and -> watermark(x * 10) -> hash(x % 3) -> tumbling count -> sink."""
    return pipeline(
        [node("gen", "source.datagen", count=count, rate=rate),
         node("raw", "sink.file", path=str(raw_dir)),
         node("time", "transform.watermark", timestamp="x * 10"),
         node("window", "window.tumbling", size_ms=1000, function="count"),
         node("sink", "sink.file", path=str(out_dir))],
        [edge("gen", "raw"), edge("gen", "time"), edge("time", "window", "hash", "x % 3"), edge("window", "sink")],
        interval_ms=50)


@pytest.mark.parametrize("drain", [True, False], ids=["drain", "no-drain"])
def test_drain_fires_every_window_before_the_savepoint_and_no_drain_keeps_them(tmp_path, drain):
    events: list = []
    completed, on_event = first_checkpoint_then(events)
    definition = windows_with_raw_copy(tmp_path / "windows", tmp_path / "raw")
    cluster = LocalCluster(config={"batch_size": 20})
    handle = cluster.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert completed.wait(30)
    wait_until(lambda: committed(tmp_path / "raw"), 30, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=drain).result(20)
    assert handle.wait(20).status == "FINISHED"
    emitted = len(committed(tmp_path / "raw"))  # the records before the stop, all committed with it
    counted = sum(count for _, _, count in committed(tmp_path / "windows"))
    assert 0 < emitted < 3000
    if drain:
        assert counted == emitted, "with drain every window fires, the incomplete last ones too"
    else:
        assert counted < emitted, "without drain the open windows stay in the savepoint"
    result = cluster.run(definition, restore=location, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert sorted(committed(tmp_path / "raw")) == list(range(3000))
    assert sum(count for _, _, count in committed(tmp_path / "windows")) == 3000


def test_a_failed_stop_without_drain_lets_the_job_go_on(tmp_path):
    events: list = []
    completed, on_event = first_checkpoint_then(events)
    definition = keyed_count(tmp_path / "out", count=4000, rate=4000)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the savepoint directory would go")
    handle = LocalCluster(config={"batch_size": 40}).submit(definition, on_event=on_event,
                                                           checkpoint_dir=str(tmp_path / "c"))
    assert completed.wait(30)
    with pytest.raises(Exception):
        handle.stop_with_savepoint(target=str(blocker)).result(20)
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    assert as_counter(committed(tmp_path / "out")) == expected_counts(4000)
    assert len(checkpoint_events(result.events)) > 1, "periodic checkpoints went on after the failed stop"


def test_a_failed_stop_with_drain_recovers_from_the_latest_checkpoint(tmp_path):
    events: list = []
    completed, on_event = first_checkpoint_then(events)
    definition = keyed_count(tmp_path / "out", count=4000, rate=4000,
                             restart={"strategy": "fixed_delay", "attempts": 2, "delay_ms": 10})
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    handle = LocalCluster(config={"batch_size": 40}).submit(definition, on_event=on_event,
                                                           checkpoint_dir=str(tmp_path / "c"))
    assert completed.wait(30)
    with pytest.raises(Exception):
        handle.stop_with_savepoint(drain=True, target=str(blocker)).result(20)
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    assert result.restarts == 1
    assert as_counter(committed(tmp_path / "out")) == expected_counts(4000)


def test_savepoints_and_stops_are_refused_in_batch_mode(tmp_path):
    definition = keyed_count(tmp_path / "out", count=None, rate=100, mode="batch")
    handle = LocalCluster().submit(definition, checkpoint_dir=str(tmp_path / "c"))
    try:
        with pytest.raises(Exception, match="batch mode"):
            handle.stop_with_savepoint().result(5)
        with pytest.raises(Exception, match="batch mode"):
            handle.trigger_savepoint().result(5)
    finally:
        handle.cancel()
        assert handle.wait(20).status == "CANCELED"


@pytest.mark.parametrize("drain", [True, False], ids=["drain", "no-drain"])
def test_stop_with_savepoint_at_parallelism_2_then_restore_completes_the_rest(deployment, tmp_path, drain):
    """At p=2 the hash exchange crosses slots (TCP on Spark): EndOfData and the savepoint's
    barrier travel with the records; the restored job emits the rest, nothing twice."""
    events: list = []
    completed, on_event = first_checkpoint_then(events)
    definition = windows_with_raw_copy(tmp_path / "windows", tmp_path / "raw", count=3000, rate=1000)
    definition["parallelism"] = 2
    handle = deployment.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert completed.wait(120), "no checkpoint completed"
    wait_until(lambda: committed(tmp_path / "raw"), 60, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=drain).result(60)
    first = handle.wait(60)
    assert first.status == "FINISHED", first.failure
    stop = next(e for e in checkpoint_events(first.events) if e["external_path"] == location)
    assert stop["checkpoint_type"] == "SYNC_SAVEPOINT"
    emitted = len(committed(tmp_path / "raw"))
    counted = sum(count for _, _, count in committed(tmp_path / "windows"))
    assert 0 < emitted < 3000
    if drain:
        assert counted == emitted, "with drain every window fires, the incomplete last ones too"
    else:
        assert counted < emitted, "without drain the open windows stay in the savepoint"
    result = deployment.run(definition, restore=location, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert sorted(committed(tmp_path / "raw")) == list(range(3000))
    assert sum(count for _, _, count in committed(tmp_path / "windows")) == 3000
