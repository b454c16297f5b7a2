"""An elastic session on a real Spark standalone master: its executors follow the slots its runs need.

One master and one 2-core worker from the pyspark distribution, started once for the module; the
session runs in a process of its own (``elastic_session.py``: one Spark application per process). It
starts at its minimum (1 executor, one core each), a run needing 2 slots at once waits visibly until
the session grew to 2 executors, finishes exactly, and the idle executor is released back to the
minimum after the grace period; then a run ending beside a live one: its executor is released, the
live run's never. Spark's own dynamic allocation is no alternative: it refuses barrier
stages, which every region is.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.cluster.elastic_session import COUNT
from tests.engine.cluster.test_standalone_cluster import standalone_spark

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def standalone_master(tmp_path_factory):
    """A master and one 2-core worker on 127.0.0.1; torn down with every process they started."""
    with standalone_spark(tmp_path_factory.mktemp("spark-elastic"), workers=1, memory="2g") as cluster:
        yield cluster


def expected_sums(count: int) -> dict:
    totals = {}
    for x in range(count):
        totals[x % 7] = totals.get(x % 7, 0) + x
    return totals


def test_a_run_of_two_slots_grows_the_session_to_two_executors_and_they_shrink_back_after_it(
        standalone_master, tmp_path):
    done = subprocess.run([sys.executable, "-m", "tests.engine.cluster.elastic_session", standalone_master["url"],
                           str(tmp_path)], cwd=ROOT, env={**standalone_master["env"], "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=240)
    phases = {line["phase"]: line for line in map(json.loads, (text for text in done.stdout.splitlines()
                                                                if text.startswith("{")))}
    assert done.returncode == 0 and "dynamic_allocation" in phases, (done.stdout[-3000:], done.stderr[-3000:])

    assert phases["started"]["max_slots"] == 2
    idle = phases["idle"]["usage"]
    assert (idle["executors"], idle["slots"], idle["executors_target"], idle["executors_min"],
            idle["executors_max"]) == (1, 1, 1, 1, 2), "idle: the minimum of one executor, one slot"

    ran = phases["ran"]
    assert (ran["status"], ran["failure"], ran["restarts"]) == ("FINISHED", None, 0)
    waiting = [event for event in ran["events"] if event.get("event") == "waiting"]
    assert waiting == [{"type": "region", "event": "waiting", "region": "r0", "slots": 2, "capacity": 1}], (
        "the run waits, visibly, for the executor it needs")
    assert ran["most_executors"] == 2
    assert not [event for event in ran["events"] if event["type"] == "task_failed"], "no slot of the run was killed"
    finals = {}
    for key, total in ran["records"]:
        finals[key] = max(finals.get(key, 0), total)
    assert len(ran["records"]) == COUNT and finals == expected_sums(COUNT), "every running sum exactly once"

    released = phases["released"]["usage"]
    assert (released["executors"], released["executors_target"], released["slots"], released["used"]) == (1, 1, 1, 0)

    beside = phases["beside_a_live_run"]
    assert (beside["short_status"], beside["short_records"], beside["executors_beside"]) == ("FINISHED", 200, 2)
    assert (beside["live_status"], beside["live_restarts"], beside["live_failed"]) == ("CANCELED", 0, []), (
        "the executor released was the idle one, never the live run's")
    assert beside["executors_after"] == 1
    assert_running_sums_exact(beside["live_records"])

    assert "does not support dynamic resource allocation" in phases["dynamic_allocation"]["error"]


def assert_running_sums_exact(records: list) -> None:
    """A cancelled run of datagen 0, 1, 2, ... -> running sums by x % 7: each key's committed sums are the first
    running sums of its numbers, each once, none missing in between."""
    assert len(records) >= 50
    by_key = {}
    for key, total in records:
        by_key.setdefault(key, []).append(total)
    for key, totals in by_key.items():
        expected, running = [], 0
        for x in range(key, key + 7 * len(totals), 7):
            running += x
            expected.append(running)
        assert sorted(totals) == expected, f"key {key}: {sorted(totals)[:5]}... against {expected[:5]}..."
