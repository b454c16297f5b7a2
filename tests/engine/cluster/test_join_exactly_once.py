"""The joins exactly once: under kills (in process at named points, and slots dying on both
deployments), and restored from a savepoint at another parallelism (2 -> 3).

Two rate-limited datagen sources -> event time -> hash by key -> join (left, right) ->
two-phase-commit file sink. Each source subtask's times increase, so no record is ever
late however the inputs interleave or restart: the committed output of every run must
be exactly the plain-Python reference's, nothing lost, nothing doubled.
"""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from engine.cluster.local import LocalCluster
from tests.builders import edge, node, pipeline
from tests.engine.joins_reference import interval_reference, window_reference
from tests.engine.lifecycle.support import KillOnce, KillSeries, committed
from tests.support import assert_exactly_once, wait_until

LEFT_COUNT, RIGHT_COUNT = 3000, 1000
JOINS = {
    "interval": {"type": "join.interval",
                 "params": {"lower_ms": -4, "upper_ms": 5, "join_type": "left_outer"}},
    "window": {"type": "join.window", "params": {"size_ms": 12, "slide_ms": 4}},
    "window_outer": {"type": "join.window",
                     "params": {"size_ms": 12, "slide_ms": 4, "join_type": "left_outer", "allowed_lateness_ms": 20}},
}
"""``window_outer``'s lateness keeps fired windows in state for a while, so a snapshot holds some that
fired: restored, they must not fire (and emit their unmatched lefts) again."""
OUTPUT = '[left["id"], right["id"] if right is not None else None]'


def join_job(sink_dir: Path, join: str, *, rate: int, join_parallelism: int = 2, attempts: int = 0) -> dict:
    spec = JOINS[join]
    return pipeline(
        [node("l", "source.datagen", count=LEFT_COUNT, rate=rate * 3,
              expression='{"k": x % 10, "t": x, "id": x}'),
         node("r", "source.datagen", count=RIGHT_COUNT, rate=rate,
              expression='{"k": x * 3 % 10, "t": x * 3, "id": 100000 + x}'),
         node("lt", "transform.watermark", timestamp='x["t"]'),
         node("rt", "transform.watermark", timestamp='x["t"]'),
         node("j", spec["type"], parallelism=join_parallelism, output=OUTPUT, **spec["params"]),
         node("sink", "sink.file", parallelism=join_parallelism, path=str(sink_dir))],
        [edge("l", "lt"), edge("r", "rt"),
         {**edge("lt", "j", "hash", 'x["k"]'), "side": "left"},
         {**edge("rt", "j", "hash", 'x["k"]'), "side": "right"},
         edge("j", "sink")],
        parallelism=2, interval_ms=100,
        restart={"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 5})


def expected(join: str) -> Counter:
    left = [{"k": x % 10, "t": x, "id": x} for x in range(LEFT_COUNT)]
    right = [{"k": x * 3 % 10, "t": x * 3, "id": 100000 + x} for x in range(RIGHT_COUNT)]
    steps = [("left", left), ("right", right)]
    if join == "interval":
        pairs = interval_reference(steps, -4, 5, 0, outer=True)
    else:
        params = JOINS[join]["params"]
        pairs = window_reference(steps, params["size_ms"], params["slide_ms"], params.get("allowed_lateness_ms", 0),
                                 outer=params.get("join_type") == "left_outer")
    return Counter({tuple(json.loads(pair)): n for pair, n in pairs.items()})


def committed_pairs(sink_dir: Path) -> Counter:
    return Counter(tuple(record) for record in committed(sink_dir))


def assert_exact(sink_dir: Path, join: str, context: str = "") -> None:
    assert_exactly_once(committed_pairs(sink_dir), expected(join), context)


KILL_POINTS = [("process", None), ("barrier", None), ("snapshot", None), ("async_upload", None),
               ("before_ack", None), ("before_commit", None), ("after_commit", None)]
"""Points every attempt passes (a batch, and each checkpoint's phases), so each armed kill fires."""



def kill_in_join(rng: random.Random) -> KillOnce:
    """A join subtask at one of ``KILL_POINTS`` (``KillSeries``'s next kill)."""
    point, condition = rng.choice(KILL_POINTS)
    return KillOnce(point, ("j", rng.randrange(2)), condition)


@pytest.mark.timeout(200)
@pytest.mark.parametrize("join", ["interval", "window", "window_outer"])
def test_committed_join_output_is_exact_despite_kills_at_random_points(tmp_path, join):
    seed = random.randrange(2**32)
    kills = KillSeries(seed, kills=6, arm=kill_in_join)
    result = LocalCluster(config={"batch_size": 32}).run(
        join_job(tmp_path / "out", join, rate=400, attempts=10), kill_hook=kills, timeout=150,
        checkpoint_dir=str(tmp_path / "checkpoints"))
    context = f"seed {seed}, kills {kills.fired}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert len(kills.fired) >= 3, context
    assert_exact(tmp_path / "out", join, context)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("join", ["interval", "window"])
def test_joins_stay_exactly_once_when_slots_die(deployment, tmp_path, join):
    """Two slots killed (SIGKILL on Spark) after checkpoints; each restart resumes from the latest one."""
    from tests.engine.deployers import run_with_kills

    # about four seconds of input: time for two kills and their restarts (seconds each on Spark)
    result, killed = run_with_kills(deployment, join_job(tmp_path / "out", join, rate=250, attempts=5), kills=2,
                                    seed=7, checkpoint_dir=str(tmp_path / "checkpoints"), timeout=250)
    assert result.restarts == 2, killed
    assert_exact(tmp_path / "out", join, f"killed {killed}")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("join", ["interval", "window", "window_outer"])
def test_a_join_stopped_at_parallelism_2_continues_at_3_exactly_once(deployment, tmp_path, join):
    """The savepoint holds both sides' buffered records by key group; three subtasks take them over."""
    sink_dir = tmp_path / "out"
    handle = deployment.submit(join_job(sink_dir, join, rate=300), checkpoint_dir=str(tmp_path / "c1"))
    wait_until(lambda: committed(sink_dir), 120, "some committed output before the stop")
    location = handle.stop_with_savepoint(drain=False).result(60)
    first = handle.wait(60)
    assert first.status == "FINISHED", first.failure
    assert 0 < len(committed(sink_dir)) < sum(expected(join).values())
    result = deployment.run(join_job(sink_dir, join, rate=0, join_parallelism=3), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert_exact(sink_dir, join, "after the restore at parallelism 3")


SLOW_OUTPUT = f"({OUTPUT}) if sum([1] * 100000) else None"
"""The same pairs, at about two milliseconds each: the join holds its inputs back (backpressure), and
the job lasts a few seconds, about ten checkpoints: enough for every kill to find its point (one at a
commit needs up to four checkpoints of its subtask)."""


@pytest.mark.timeout(200)
@pytest.mark.parametrize("join", ["interval", "window"])
def test_unaligned_checkpoints_of_a_backpressured_join_persist_in_flight_data_and_stay_exact(tmp_path, join):
    """Barriers overtake both sides' queued buffers; after kills the persisted buffers are replayed into
    their own side (each channel's), and the committed output is still exact."""
    seed = random.randrange(2**32)
    kills = KillSeries(seed, kills=3, arm=kill_in_join)
    job = join_job(tmp_path / "out", join, rate=0, attempts=10)
    job["checkpointing"]["unaligned"] = True
    job["nodes"][4]["params"]["output"] = SLOW_OUTPUT
    result = LocalCluster(config={"batch_size": 16}).run(
        job, kill_hook=kills, timeout=150, checkpoint_dir=str(tmp_path / "checkpoints"))
    context = f"seed {seed}, kills {kills.fired}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert kills.fired and result.restarts >= 1, context
    assert_exact(tmp_path / "out", join, context)
    completed = [e for e in result.events if e.get("type") == "checkpoint" and e.get("event") == "completed"]
    assert any(c["persisted_data"] > 0 for c in completed), "no checkpoint overtook in-flight buffers"
