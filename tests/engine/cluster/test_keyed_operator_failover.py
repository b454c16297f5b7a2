"""Session windows and deduplication under kills and rescaled restores.

Both deployments (``inprocess`` and ``spark``). The jobs are deterministic although two
source subtasks feed the operator: event time grows with the datagen number, so every
source subtask's event time only increases and no record is ever late -- also not after
a restore, where the watermark starts low again. What a key's sessions hold then depends
only on the event times, not on how the two sources interleave, so a failure-free run's
committed output is fixed and must come out exactly once after kills and rescaling.
Deduplication depends on each key's arrival order too: its key ``x % 12`` puts every key's
numbers into one source split (datagen subtask i of 2 or 3 emits i, i + p, ...), in order.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from tests.builders import edge, node, pipeline
from tests.engine.deployers import run_with_kills
from tests.support import assert_exactly_once, wait_until

KILL_SEED = int(os.environ.get("KILL_SEED", "20261125"))
"""The seed of the random kills (set KILL_SEED to replay another run's)."""
RECORDS = 3000
KEYS = 7
TIME = "x * 10 + (x // 120) * 5000"
"""Event time: 10 ms per number, and a pause of 5 s after every 120 numbers, which ends every session."""
GAP_MS = 200


def event_time(x: int) -> int:
    return x * 10 + (x // 120) * 5000


def sessions_job(sink_dir: Path, *, parallelism: int = 2, rate: float = 1500, attempts: int = 10) -> dict:
    """datagen -> event time -> hash(x % 7) -> session window sum -> two-phase-commit file sink."""
    return pipeline([node("gen", "source.datagen", count=RECORDS, rate=rate),
                     node("time", "transform.watermark", timestamp=TIME),
                     node("sessions", "window.session", gap_ms=GAP_MS, function="sum"),
                     node("sink", "sink.file", path=str(sink_dir))],
                    [edge("gen", "time"), edge("time", "sessions", "hash", f"x % {KEYS}"), edge("sessions", "sink")],
                    name="sessions", parallelism=parallelism, interval_ms=100,
                    restart={"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 0})


def expected_sessions() -> Counter:
    """Per key, the numbers of one block of 120 are 70 ms apart (< gap): one session per key and block."""
    sessions: dict[tuple[int, int], list[int]] = {}
    for x in range(RECORDS):
        sessions.setdefault((x % KEYS, x // 120), []).append(x)
    return Counter((key, event_time(xs[0]), event_time(xs[-1]) + GAP_MS, sum(xs))
                   for (key, _), xs in sessions.items())


def committed_lines(sink_dir: Path) -> Counter:
    return Counter(tuple(json.loads(line)) for path in Path(sink_dir).glob("part-*.jsonl")
                   for line in path.read_text().splitlines() if line)


def test_session_windows_are_exactly_once_under_random_kills(deployment, tmp_path):
    run_with_kills(deployment, sessions_job(tmp_path / "out"), kills=3, seed=KILL_SEED,
                   checkpoint_dir=str(tmp_path / "c1"))
    assert_exactly_once(committed_lines(tmp_path / "out"), expected_sessions())


def test_session_windows_restore_at_parallelism_3_from_a_savepoint_at_2(deployment, tmp_path):
    completed = []
    handle = deployment.submit(sessions_job(tmp_path / "out", rate=1500), checkpoint_dir=str(tmp_path / "c1"),
                               on_event=lambda e: e["type"] == "checkpoint" and e["event"] == "completed"
                               and completed.append(e))
    wait_until(lambda: completed and committed_lines(tmp_path / "out"), 120, "committed sessions")
    location = handle.stop_with_savepoint(drain=False).result(60)
    assert handle.wait(60).status == "FINISHED"
    stopped = committed_lines(tmp_path / "out")
    assert 0 < sum(stopped.values()) < sum(expected_sessions().values()), "stopped halfway"

    result = deployment.run(sessions_job(tmp_path / "out", parallelism=3, rate=0), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_lines(tmp_path / "out") == expected_sessions(), "open sessions carried over, none doubled"


# -- transform.deduplicate ------------------------------------------------------------------------

DEDUP_KEYS = 12
TTL_MS = 500


def dedup_job(sink_dir: Path, keep: str, *, parallelism: int = 2, rate: float = 1500) -> dict:
    """datagen -> event time x * 10 -> hash(x % 12) -> deduplicate (TTL 500 ms) -> two-phase-commit file sink."""
    return pipeline([node("gen", "source.datagen", count=RECORDS, rate=rate),
                     node("time", "transform.watermark", timestamp="x * 10"),
                     node("dedup", "transform.deduplicate", ttl_ms=TTL_MS, keep=keep),
                     node("sink", "sink.file", path=str(sink_dir))],
                    [edge("gen", "time"), edge("time", "dedup", "hash", f"x % {DEDUP_KEYS}"), edge("dedup", "sink")],
                    name="dedup", parallelism=parallelism, interval_ms=100,
                    restart={"strategy": "fixed_delay", "attempts": 10, "delay_ms": 0})


def expected_dedup(keep: str) -> Counter:
    kept = []
    for key in range(DEDUP_KEYS):
        end, last = None, None
        for x in range(key, RECORDS, DEDUP_KEYS):
            if end is None or x * 10 >= end:
                if last is not None and keep == "last":
                    kept.append(last)
                end = x * 10 + TTL_MS
                if keep == "first":
                    kept.append(x)
            last = x
        if keep == "last":
            kept.append(last)
    return Counter(kept)


def committed_numbers(sink_dir: Path) -> Counter:
    return Counter(json.loads(line) for path in Path(sink_dir).glob("part-*.jsonl")
                   for line in path.read_text().splitlines() if line)


def test_deduplication_is_exactly_once_under_random_kills(deployment, tmp_path):
    run_with_kills(deployment, dedup_job(tmp_path / "out", "first"), kills=3, seed=KILL_SEED,
                   checkpoint_dir=str(tmp_path / "c1"))
    assert_exactly_once(committed_numbers(tmp_path / "out"), expected_dedup("first"))


def test_deduplication_keeping_the_last_restores_at_parallelism_3_from_a_savepoint_at_2(deployment, tmp_path):
    completed = []
    handle = deployment.submit(dedup_job(tmp_path / "out", "last"), checkpoint_dir=str(tmp_path / "c1"),
                               on_event=lambda e: e["type"] == "checkpoint" and e["event"] == "completed"
                               and completed.append(e))
    wait_until(lambda: completed and committed_numbers(tmp_path / "out"), 120, "committed records")
    location = handle.stop_with_savepoint(drain=False).result(60)
    assert handle.wait(60).status == "FINISHED"
    assert 0 < sum(committed_numbers(tmp_path / "out").values()) < sum(expected_dedup("last").values())

    result = deployment.run(dedup_job(tmp_path / "out", "last", parallelism=3, rate=0), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_numbers(tmp_path / "out") == expected_dedup("last"), "kept records carried over, none doubled"


# -- state TTL --------------------------------------------------------------------------------------

def count_ttl_job(sink_dir: Path, *, parallelism: int = 2, rate: float = 1500) -> dict:
    """Count windows of 7 with a state TTL of 1 s over event time with a 5 s pause every 120 numbers: each
    key sees 10 numbers per block, emits the sum of the first 7, and its other 3 expire in the pause."""
    return pipeline([node("gen", "source.datagen", count=RECORDS, rate=rate),
                     node("time", "transform.watermark", timestamp=TIME),
                     node("counts", "window.count", size=7, state_ttl_ms=1000),
                     node("sink", "sink.file", path=str(sink_dir))],
                    [edge("gen", "time"), edge("time", "counts", "hash", f"x % {DEDUP_KEYS}"), edge("counts", "sink")],
                    name="count-ttl", parallelism=parallelism, interval_ms=100,
                    restart={"strategy": "fixed_delay", "attempts": 10, "delay_ms": 0})


def expected_count_windows_with_ttl() -> Counter:
    blocks: dict[tuple[int, int], list[int]] = {}
    for x in range(RECORDS):
        blocks.setdefault((x % DEDUP_KEYS, x // 120), []).append(x)
    return Counter((key, sum(xs[:7])) for (key, _), xs in blocks.items() if len(xs) >= 7)


def test_count_windows_with_a_state_ttl_restore_at_parallelism_3_from_a_savepoint_at_2(deployment, tmp_path):
    completed = []
    handle = deployment.submit(count_ttl_job(tmp_path / "out"), checkpoint_dir=str(tmp_path / "c1"),
                               on_event=lambda e: e["type"] == "checkpoint" and e["event"] == "completed"
                               and completed.append(e))
    wait_until(lambda: completed and committed_lines(tmp_path / "out"), 120, "committed windows")
    location = handle.stop_with_savepoint(drain=False).result(60)
    assert handle.wait(60).status == "FINISHED"
    assert 0 < sum(committed_lines(tmp_path / "out").values()) < sum(expected_count_windows_with_ttl().values())

    result = deployment.run(count_ttl_job(tmp_path / "out", parallelism=3, rate=0), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_lines(tmp_path / "out") == expected_count_windows_with_ttl(), \
        "partial windows and their expiry times carried over, expired ones never counted"


# -- the late port across processes ---------------------------------------------------------------

def test_every_record_is_in_a_session_or_leaves_through_the_late_port(deployment, tmp_path):
    """Every tenth number is stamped five seconds in the past (500 numbers back): those after the first
    few hundred are late, as the source is rate limited to small batches. Whatever the batching, each
    record is counted in exactly one session or arrives at the late edge's sink, across processes."""
    count = 2000
    collect_all = {"max_records": 100000}
    definition = pipeline(
        [node("gen", "source.datagen", parallelism=1, count=count, rate=2000),
         node("time", "transform.watermark", parallelism=1, timestamp="x * 10 - 5000 if x % 10 == 0 else x * 10"),
         node("sessions", "window.session", gap_ms=10, function="count"),
         node("out", "sink.collect", parallelism=1, **collect_all),
         node("late", "sink.collect", parallelism=1, **collect_all)],
        [edge("gen", "time"), edge("time", "sessions", "hash", "x % 3"), edge("sessions", "out", "rebalance"),
         edge("sessions", "late", "rebalance", from_port="late")],
        name="late", parallelism=2, interval_ms=100)
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    late = result.collected["late"]
    assert late and all(x % 10 == 0 for x in late), "only the back-dated numbers can be late"
    assert sum(n for _, _, _, n in result.collected["out"]) + len(late) == count


# -- allowed lateness across a rescaled restore ---------------------------------------------------------

def lateness_job(*, parallelism: int, rate: float) -> dict:
    """Tumbling windows of 100 ms counting per key with an allowed lateness of 5 s; every tenth number is
    stamped a second in the past, so it updates a window that fired already (and is never late)."""
    collect_all = {"max_records": 100000}
    return pipeline(
        [node("gen", "source.datagen", parallelism=1, count=RECORDS, rate=rate),
         node("time", "transform.watermark", parallelism=1, timestamp="x * 10 - 1000 if x % 10 == 0 else x * 10"),
         node("windows", "window.tumbling", size_ms=100, function="count", allowed_lateness_ms=5000),
         node("out", "sink.collect", parallelism=1, **collect_all),
         node("late", "sink.collect", parallelism=1, **collect_all)],
        [edge("gen", "time"), edge("time", "windows", "hash", "x % 5"), edge("windows", "out", "rebalance"),
         edge("windows", "late", "rebalance", from_port="late")],
        name="lateness", parallelism=parallelism, interval_ms=100)


def test_fired_windows_kept_for_lateness_restore_at_parallelism_3_from_a_savepoint_at_2(deployment, tmp_path):
    """Counts only grow, so the largest count emitted per window is its final one: it must be the number
    of its records, also for windows that fired before the savepoint and were updated after the restore."""
    emitted = []
    handle = deployment.submit(lateness_job(parallelism=2, rate=1500), checkpoint_dir=str(tmp_path / "c1"),
                               on_event=lambda e: e["type"] == "checkpoint" and e["event"] == "completed"
                               and emitted.append(e))
    wait_until(lambda: len(emitted) >= 3, 120, "three completed checkpoints")
    location = handle.stop_with_savepoint(drain=False).result(60)
    first = handle.wait(60)
    assert first.status == "FINISHED", first.failure
    second = deployment.run(lateness_job(parallelism=3, rate=0), restore=location, checkpoint_dir=str(tmp_path / "c2"))
    assert second.status == "FINISHED", second.failure
    assert first.collected["out"] and second.collected["out"], "windows fired before and after the restore"
    assert not first.collected["late"] and not second.collected["late"]
    final: dict[tuple[int, int], int] = {}
    for key, end, count in first.collected["out"] + second.collected["out"]:
        final[(key, end)] = max(final.get((key, end), 0), count)
    expected: Counter = Counter()
    for x in range(RECORDS):
        t = x * 10 - 1000 if x % 10 == 0 else x * 10
        expected[(x % 5, t - t % 100 + 100)] += 1
    assert final == dict(expected)
