"""``source.hybrid``: history files, then a Redis stream from the recorded position, exactly once.

Setup shared by the tests: a stream holds entries 0..TOTAL-1 (``{"value": json(n)}``);
the history export holds 0..HISTORY-1 in three JSON-lines files, and ``start_id`` is the
id of entry HISTORY-1, so the live phase must begin with HISTORY and nothing may appear
twice although the stream still has the exported entries too.
"""
from __future__ import annotations

import json
import threading
import uuid

import pytest

from engine.cluster.local import LocalCluster
from engine.spec import validate_definition
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import checkpoint_events, committed

HISTORY = 1500
TOTAL = 3000
MORE_LIVE = 6000
"""Live entries the kill test adds, so that its job runs for seconds."""


@pytest.fixture
def stream(redis_client, tmp_path):
    client, keys = redis_client
    name = f"hybrid-{uuid.uuid4().hex}"
    keys.append(name)
    pipe = client.pipeline(transaction=False)
    for n in range(TOTAL):
        pipe.xadd(name, {"value": json.dumps(n)})
    ids = pipe.execute()
    history = tmp_path / "history"
    history.mkdir()
    for part in range(3):
        numbers = range(part * HISTORY // 3, (part + 1) * HISTORY // 3)
        (history / f"export-{part}.jsonl").write_text("".join(f"{n}\n" for n in numbers))
    return {"client": client, "name": name, "ids": ids, "history": history}


def hybrid_job(stream, sink_dir, parallelism=1, start_id=None, bounded=True, interval_ms=20, work=1):
    """``work``: how many deliberately slow sums the map computes per record (a longer job); they
    share one evaluation's budget of 100,000 items made by repetition."""
    size = 20000 if work == 1 else 96000 // work
    slow_identity = "(" + " + ".join([f"sum([x] * {size})"] * work) + f") // {size * work}"
    params = {"path": str(stream["history"]), "stream": stream["name"], "bounded": bounded, "batch_size": 25,
              "start_id": start_id if start_id is not None else stream["ids"][HISTORY - 1]}
    return pipeline([node("src", "source.hybrid", **params),
                     node("slow", "transform.map", expression=slow_identity),
                     node("sink", "sink.file", path=str(sink_dir))],
                    [edge("src", "slow", "rebalance"), edge("slow", "sink")], parallelism=parallelism,
                    interval_ms=interval_ms, restart={"strategy": "fixed_delay", "attempts": 3, "delay_ms": 0})


def test_the_catalog_entry_validates(stream, tmp_path):
    assert validate_definition(hybrid_job(stream, tmp_path / "out")) == []
    bad = hybrid_job(stream, tmp_path / "out", start_id="yesterday")
    assert [e["field"] for e in validate_definition(bad)] == ["params.start_id"]


@pytest.mark.parametrize("parallelism", [1, 3])
def test_history_then_live_exactly_once(stream, tmp_path, parallelism):
    result = LocalCluster(config={"batch_size": 25}).run(hybrid_job(stream, tmp_path / "out", parallelism),
                                                         timeout=60, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert sorted(committed(tmp_path / "out")) == list(range(TOTAL))


def test_history_then_live_exactly_once_at_parallelism_2_with_a_kill(deployment, stream, tmp_path):
    """The switch from files to the stream, on both deployments: a slot dies after a
    checkpoint; the restored sources resume in their phase, nothing lost or doubled. The map
    is slow enough (``work``) and the live data long enough that the job still runs when the
    first checkpoint completed, also in a warm test process on a fast, loaded machine (with
    the fixture's 3,000 records the job ran 1.2 s and its first checkpoint completed after
    0.25-0.7 s)."""
    from tests.engine.deployers import run_with_kills

    pipe = stream["client"].pipeline(transaction=False)
    for n in range(TOTAL, TOTAL + MORE_LIVE):  # before the start: the bounded stream ends after them
        pipe.xadd(stream["name"], {"value": json.dumps(n)})
    pipe.execute()
    job = hybrid_job(stream, tmp_path / "out", parallelism=2, interval_ms=50, work=6)
    result, _ = run_with_kills(deployment, job, kills=1, seed=3, tasks=[("src", 0), ("src", 1)], max_delay_s=0.05,
                               checkpoint_dir=str(tmp_path / "c"), timeout=180)
    assert result.restarts == 1
    assert sorted(committed(tmp_path / "out")) == list(range(TOTAL + MORE_LIVE))


class KillInPhase:
    """Kills the source once it is in ``phase`` and a checkpoint completed in that phase (so the restore is from it)."""

    def __init__(self, phase: str):
        self.phase = phase
        self.checkpointed_in_phase = threading.Event()
        self.fired = []
        self._records = 0

    def in_phase(self, records_out: int) -> bool:
        return (records_out > HISTORY + 100) if self.phase == "live" else (100 < records_out < HISTORY - 300)

    def on_event(self, event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed" and self.in_phase(self._records):
            self.checkpointed_in_phase.set()

    def __call__(self, point, task, info):
        if point != "source_poll" or self.fired:
            return False
        self._records = info["records_out"]
        if self.checkpointed_in_phase.is_set() and self.in_phase(self._records):
            self.fired.append(self._records)
            return True
        return False


@pytest.mark.parametrize("phase", ["history", "live"])
def test_a_restore_in_either_phase_continues_exactly_once(stream, tmp_path, phase):
    kill = KillInPhase(phase)
    result = LocalCluster(config={"batch_size": 5}).run(
        hybrid_job(stream, tmp_path / "out"), kill_hook=kill, on_event=kill.on_event, timeout=90,
        checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert kill.fired and result.restarts == 1, "the kill happened, after a checkpoint in that phase"
    restored = [e for e in result.events if e.get("status") == "RUNNING"][-1]["restored_from"]
    assert restored, "restarted from a checkpoint, not from scratch"
    assert sorted(committed(tmp_path / "out")) == list(range(TOTAL))


def test_savepoint_in_the_live_phase_restored_at_another_parallelism(stream, tmp_path):
    live = threading.Event()

    def on_event(event):
        if event.get("type") == "metrics" and "live" in json.dumps(event.get("tasks", {})):
            live.set()

    definition = hybrid_job(stream, tmp_path / "out", parallelism=2, bounded=False)
    cluster = LocalCluster(config={"batch_size": 5})
    handle = cluster.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c1"))
    assert live.wait(30), "the source never reported its live phase"
    location = handle.stop_with_savepoint().result(20)
    assert handle.wait(20).status == "FINISHED"
    for n in range(TOTAL, TOTAL + 200):  # live data keeps coming while the job is stopped
        stream["client"].xadd(stream["name"], {"value": json.dumps(n)})
    definition = hybrid_job(stream, tmp_path / "out", parallelism=3, bounded=True)
    result = cluster.run(definition, restore=location, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert sorted(committed(tmp_path / "out")) == list(range(TOTAL + 200))
    assert checkpoint_events(result.events)


def test_start_id_dollar_reads_only_what_arrives_after_the_first_start(stream, tmp_path):
    definition = hybrid_job(stream, tmp_path / "out", start_id="$", bounded=False)
    cluster = LocalCluster(config={"batch_size": 25})
    started = threading.Event()

    def on_event(event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed":
            started.set()

    handle = cluster.submit(definition, on_event=on_event, checkpoint_dir=str(tmp_path / "c"))
    assert started.wait(30)
    for n in range(10_000, 10_050):
        stream["client"].xadd(stream["name"], {"value": json.dumps(n)})
    from tests.support import wait_until

    wait_until(lambda: handle.metrics().get("slow#0", {}).get("records_in", 0) >= HISTORY + 50, 30,
               "the live entries to pass")
    handle.stop_with_savepoint().result(20)
    assert handle.wait(20).status == "FINISHED"
    assert sorted(committed(tmp_path / "out")) == list(range(HISTORY)) + list(range(10_000, 10_050))


def test_the_history_is_never_caught_up_the_live_stream_when_a_read_comes_short(stream, tmp_path):
    """While files are read a short poll says nothing (their blocks come a little under the batch), so the
    output buffers keep filling; on the stream a read short of its ``batch_size`` found its end."""
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.hybrid_source import HybridSource
    from engine.runtime.operators.source import END_OF_INPUT

    params = {"path": str(stream["history"]), "stream": stream["name"], "bounded": True, "batch_size": 1000,
              "start_id": stream["ids"][HISTORY - 1]}
    source = HybridSource({"id": "src", "type": "source.hybrid", "params": params},
                          OperatorContext(task=("src", 0), node_id="src", parallelism=1, max_parallelism=8,
                                          config={"batch_size": 1024}))
    source.initialize_state()
    source.open()
    answers = {"history": set(), "live": set()}
    try:
        while (batch := source.poll_next()) is not END_OF_INPUT:
            if batch:
                answers[source.phase if source.phase != "done" else "live"].add((len(batch) < 1000,
                                                                                 source.caught_up(len(batch))))
    finally:
        source.close()
    assert answers["history"] == {(True, False)}  # 500 lines a file, every poll short and none caught up
    assert answers["live"] == {(False, False), (True, True)}  # 1,000 entries, then the last 500
