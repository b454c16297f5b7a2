"""A source chained with both filters it fans out to (the JobGraph's fan-out chaining), each filter
feeding one side of a window join over a hash edge: the same committed output as the unchained job,
exactly once under kills inside the chain and slots dying, and across a savepoint taken unchained
and restored chained.

One rate-limited datagen source at parallelism 2 -> event time -> ``lefts`` and ``rights`` (filters)
-> window join -> two-phase-commit file sink. Each source subtask's times increase, so no record is
ever late however the subtasks interleave or restart: every run's committed output must be exactly
the plain-Python reference's.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from engine.cluster.local import LocalCluster
from engine.plan.job_graph import build_job_graph
from tests.builders import edge, node, pipeline
from tests.engine.joins_reference import window_reference
from tests.engine.lifecycle.support import KillOnce, KillSeries, committed
from tests.support import assert_exactly_once, wait_until

COUNT = 4000
SIZE_MS, SLIDE_MS = 12, 4
OUTPUT = '[left["id"], right["id"]]'
UNCHAINED = {"chain_fan_out": False}


def fan_out_join(sink_dir: Path, *, rate: int, attempts: int = 0, join_parallelism: int = 2,
                 count: int = COUNT) -> dict:
    return pipeline(
        [node("src", "source.datagen", count=count, rate=rate,
              expression='{"k": x % 10, "t": x, "id": x, "side": "r" if x % 4 == 0 else "l"}'),
         node("st", "transform.watermark", timestamp='x["t"]'),
         node("lefts", "transform.filter", predicate='x["side"] == "l"'),
         node("rights", "transform.filter", predicate='x["side"] == "r"'),
         node("j", "join.window", parallelism=join_parallelism, output=OUTPUT, size_ms=SIZE_MS, slide_ms=SLIDE_MS),
         node("sink", "sink.file", parallelism=join_parallelism, path=str(sink_dir))],
        [edge("src", "st"), edge("st", "lefts"), edge("st", "rights"),
         {**edge("lefts", "j", "hash", 'x["k"]'), "side": "left"},
         {**edge("rights", "j", "hash", 'x["k"]'), "side": "right"},
         edge("j", "sink")],
        parallelism=2, interval_ms=100,
        restart={"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 5})


def expected(count: int = COUNT) -> Counter:
    records = [{"k": x % 10, "t": x, "id": x} for x in range(count)]
    steps = [("left", [r for r in records if r["id"] % 4]), ("right", [r for r in records if r["id"] % 4 == 0])]
    pairs = window_reference(steps, SIZE_MS, SLIDE_MS, 0)
    return Counter({tuple(json.loads(pair)): n for pair, n in pairs.items()})


def assert_exact(sink_dir: Path, context: str = "", count: int = COUNT) -> None:
    assert_exactly_once(Counter(tuple(record) for record in committed(sink_dir)), expected(count), context)


def test_the_source_runs_both_filters_in_its_task_and_without_fan_out_chaining_hands_them_over():
    job = fan_out_join(Path("unused"), rate=0)
    chained = build_job_graph(job)
    assert [vertex.operator_ids for vertex in chained.vertices] == [("src", "st", "lefts", "rights"), ("j", "sink")]
    assert chained.vertices[0].chain_inputs == (-1, 0, 1, 1)
    assert [(e.source, e.source_node, e.side) for e in chained.inputs_of("j")] == [
        ("src", "lefts", "left"), ("src", "rights", "right")]
    unchained = build_job_graph(job, chain_fan_out=False)
    assert [vertex.operator_ids for vertex in unchained.vertices] == [
        ("src", "st"), ("lefts",), ("rights",), ("j", "sink")]


@pytest.mark.timeout(300)
def test_the_fan_out_chained_join_commits_what_the_unchained_one_does(deployment, tmp_path):
    metrics: list[dict] = []
    result = deployment.run(fan_out_join(tmp_path / "chained", rate=0), checkpoint_dir=str(tmp_path / "c1"),
                            on_event=lambda event: event.get("type") == "metrics" and metrics.append(event))
    assert result.status == "FINISHED", result.failure
    assert_exact(tmp_path / "chained", "chained")
    unchained = deployment.configured(UNCHAINED).run(fan_out_join(tmp_path / "unchained", rate=0),
                                                     checkpoint_dir=str(tmp_path / "c2"))
    assert unchained.status == "FINISHED", unchained.failure
    assert_exact(tmp_path / "unchained", "unchained")
    assert Counter(map(tuple, committed(tmp_path / "chained"))) == Counter(map(tuple, committed(tmp_path / "unchained")))
    # the filters ran in the source's subtasks, and count their own records there
    tasks = {task for event in metrics for task in event.get("tasks", {})}
    assert tasks and not any(str(task).startswith(("lefts", "rights")) for task in tasks), tasks


HELD = {"batch_size": 32, "join_buffer_min_records": 24, "buffer_timeout_ms": 60_000}
"""Buffers into the join held across watermarks: a source running flat out (``rate=0``) sends about 12 lefts
and 4 rights per channel a batch of 32, so several watermarks wait in a buffer before one holds 24 records
(``tests/engine/runtime/test_join_input_buffers.py`` shows it for this job); 0 sends them with each."""
HELD_COUNT = 60_000


@pytest.mark.timeout(300)
def test_buffers_held_across_watermarks_into_the_join_commit_what_buffers_per_watermark_do(deployment, tmp_path):
    held = deployment.configured(HELD).run(fan_out_join(tmp_path / "held", rate=0, count=HELD_COUNT),
                                           checkpoint_dir=str(tmp_path / "c1"))
    assert held.status == "FINISHED", held.failure
    assert_exact(tmp_path / "held", "held", HELD_COUNT)
    each = deployment.configured({**HELD, "join_buffer_min_records": 0}).run(
        fan_out_join(tmp_path / "each", rate=0, count=HELD_COUNT), checkpoint_dir=str(tmp_path / "c2"))
    assert each.status == "FINISHED", each.failure
    assert Counter(map(tuple, committed(tmp_path / "held"))) == Counter(map(tuple, committed(tmp_path / "each")))


KILL_POINTS = {"src": ["source_poll", "snapshot", "async_upload", "before_ack", "before_commit", "after_commit"],
               "j": ["process", "barrier", "snapshot", "async_upload", "before_ack", "before_commit", "after_commit"]}
"""Points the chained source subtasks and the join's subtasks pass (a batch, each checkpoint's phases)."""



def kill_in_chain_or_join(rng: random.Random) -> KillOnce:
    """A chained source subtask or a join subtask at one of its points (``KillSeries``'s next kill)."""
    vertex = rng.choice(sorted(KILL_POINTS))
    return KillOnce(rng.choice(KILL_POINTS[vertex]), (vertex, rng.randrange(2)))


@pytest.mark.timeout(200)
def test_committed_output_is_exact_despite_kills_inside_the_chained_fan_out(tmp_path):
    seed = random.randrange(2**32)
    kills = KillSeries(seed, kills=6, arm=kill_in_chain_or_join)
    result = LocalCluster(config={"batch_size": 32}).run(
        fan_out_join(tmp_path / "out", rate=1600, attempts=10), kill_hook=kills, timeout=150,
        checkpoint_dir=str(tmp_path / "checkpoints"))
    context = f"seed {seed}, kills {kills.fired}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert len(kills.fired) >= 3, context
    assert any(task[0] == "src" for _, task, _ in kills.fired) or len(kills.fired) < 6, context
    assert_exact(tmp_path / "out", context)


@pytest.mark.timeout(200)
def test_committed_output_is_exact_despite_kills_while_buffers_into_the_join_are_held(tmp_path):
    seed = random.randrange(2**32)
    kills = KillSeries(seed, kills=6, arm=kill_in_chain_or_join)
    count = 5 * HELD_COUNT  # running flat out, long enough for a checkpoint every 100 ms between the kills
    result = LocalCluster(config=HELD).run(
        fan_out_join(tmp_path / "out", rate=0, attempts=10, count=count), kill_hook=kills, timeout=150,
        checkpoint_dir=str(tmp_path / "checkpoints"))
    context = f"seed {seed}, kills {kills.fired}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert len(kills.fired) >= 3, context
    assert_exact(tmp_path / "out", context, count)


@pytest.mark.timeout(300)
def test_buffers_held_into_the_join_stay_exactly_once_when_slots_die(deployment, tmp_path):
    """Two slots killed (SIGKILL on Spark) after checkpoints while the source runs flat out."""
    from tests.engine.deployers import run_with_kills

    count = 4 * HELD_COUNT
    result, killed = run_with_kills(deployment.configured(HELD), fan_out_join(tmp_path / "out", rate=0, attempts=5,
                                                                              count=count),
                                    kills=2, seed=7, checkpoint_dir=str(tmp_path / "checkpoints"), timeout=250)
    assert result.restarts == 2, killed
    assert_exact(tmp_path / "out", f"killed {killed}", count)


@pytest.mark.timeout(300)
def test_the_chained_fan_out_stays_exactly_once_when_slots_die(deployment, tmp_path):
    """Two slots killed (SIGKILL on Spark) after checkpoints; each restart resumes from the latest one."""
    from tests.engine.deployers import run_with_kills

    result, killed = run_with_kills(deployment, fan_out_join(tmp_path / "out", rate=1000, attempts=5), kills=2,
                                    seed=7, checkpoint_dir=str(tmp_path / "checkpoints"), timeout=250)
    assert result.restarts == 2, killed
    assert_exact(tmp_path / "out", f"killed {killed}")


@pytest.mark.timeout(300)
def test_a_savepoint_of_the_unchained_job_restores_into_the_chained_one_exactly(deployment, tmp_path):
    """The filters' and the source's state move from three job vertices into one (found by node id)."""
    sink_dir = tmp_path / "out"
    handle = deployment.configured(UNCHAINED).submit(fan_out_join(sink_dir, rate=1200),
                                                     checkpoint_dir=str(tmp_path / "c1"))
    wait_until(lambda: committed(sink_dir), 120, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=False).result(60)
    first = handle.wait(60)
    assert first.status == "FINISHED", first.failure
    assert 0 < len(committed(sink_dir)) < sum(expected().values())
    result = deployment.run(fan_out_join(sink_dir, rate=0, join_parallelism=3), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert_exact(sink_dir, "after the restore into the chained plan at join parallelism 3")
