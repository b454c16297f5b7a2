"""A shadow job: production's version and a candidate in one job, from production's savepoint, on one input.

Production runs (gen -> filter -> running sum per key -> file); a savepoint is taken while it
runs; the shadow job of production's version and a candidate that changes the filter restores
it and runs to the end of the (bounded) input. Each side's redirected output equals a
plain-Python replay from the savepoint's positions and sums; the diff is the symmetric
difference; production's directory and savepoint are as they were.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict

import pytest

from engine.api import (SnapshotBrowser, committed_records, diff_outputs, fork_definition, load_checkpoint_metadata,
                        normalise_definition, RedirectedSink)
from engine.shadow.fork import shared_nodes
from tests.builders import edge, node, pipeline
from tests.support import wait_until

pytestmark = pytest.mark.timeout(300)
COUNT = 900


def _version(predicate: str, out: str) -> dict:
    return normalise_definition(pipeline(
        [node("gen", "source.datagen", count=COUNT, rate=600),
         node("keep", "transform.filter", predicate=predicate),
         node("total", "aggregate.reduce", function="sum"),
         node("out", "sink.file", path=out)],
        [edge("gen", "keep"), edge("keep", "total", "hash", "x % 4"), edge("total", "out")],
        parallelism=1, interval_ms=200, name="sums"))


def _replay(numbers: list[int], predicate, sums: dict) -> list:
    sums = defaultdict(int, sums)
    out = []
    for x in numbers:
        if predicate(x):
            sums[x % 4] += x
            out.append([x % 4, sums[x % 4]])
    return out


def _digests(directory: str) -> dict:
    found = {}
    for root, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, directory)] = hashlib.sha256(handle.read()).hexdigest()
    return found


def test_the_shared_part_is_what_both_versions_have_alike_up_to_the_change():
    production = _version("x % 3 != 0", "/tmp/out")
    candidate = _version("x % 5 != 0", "/tmp/out")
    assert shared_nodes(production, candidate) == {"gen"}
    assert shared_nodes(production, production) == {"gen", "keep", "total"}  # never the sinks
    job = fork_definition(production, candidate, "/tmp/shadow")
    ids = {item["id"]: item for item in job.definition["nodes"]}
    assert set(ids) == {"gen", "keep", "total", "production:out", "candidate:keep", "candidate:total",
                        "candidate:out"}
    assert ids["candidate:total"]["restore_state_of"] == "total"
    assert "restore_state_of" not in ids["candidate:out"] and ids["candidate:out"]["type"] == "sink.file"
    assert [sink["node"] for sink in job.sinks] == ["out"]


def test_shadow_job_outputs_equal_the_replays_and_leave_production_alone(deployment, tmp_path):
    production_out = str(tmp_path / "production-out")
    production = _version("x % 3 != 0", production_out)
    events: list[dict] = []
    handle = deployment.submit(production, checkpoint_dir=str(tmp_path / "production"), on_event=events.append)
    try:
        wait_until(lambda: len(committed_records(production_out)) >= 20, 120, "production to write")
        savepoint = load_checkpoint_metadata(handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=120))
    finally:
        handle.cancel()
        handle.wait(120)
    production_files, savepoint_files = _digests(production_out), _digests(savepoint["location"])

    candidate = _version("x % 5 != 0", production_out)
    job = fork_definition(production, candidate, str(tmp_path / "shadow"))
    result = deployment.run(job.definition, checkpoint_dir=str(tmp_path / "shadow-checkpoints"), restore=savepoint)
    assert result.status == "FINISHED", result.failure_cause

    browser = SnapshotBrowser(savepoint, production, tmp_path / "cache")
    split = browser.keys("gen")["rows"][0]["state"]
    sums = {row["key"]: row["state"]["aggregate"] for row in browser.keys("total", limit=10)["rows"]}
    numbers = list(range(split["next"], COUNT, split["step"]))
    sink = job.sinks[0]
    expected_production = _replay(numbers, lambda x: x % 3 != 0, sums)
    expected_candidate = _replay(numbers, lambda x: x % 5 != 0, sums)
    ours = RedirectedSink.from_json(sink["production"])
    theirs = RedirectedSink.from_json(sink["candidate"])
    assert committed_records(ours.path) == expected_production
    assert committed_records(theirs.path) == expected_candidate

    diff = diff_outputs(ours, theirs)
    only_production = [row for row in expected_production if row not in expected_candidate]
    only_candidate = [row for row in expected_candidate if row not in expected_production]
    assert diff["counts"] == {"production": len(expected_production), "candidate": len(expected_candidate),
                              "only_production": len(only_production), "only_candidate": len(only_candidate),
                              "changed": 0, "same": len(expected_production) - len(only_production)}
    assert diff["samples"]["only_production"] == sorted(only_production, key=lambda row: json.dumps(row, separators=(",", ":")))[:20]
    assert _digests(production_out) == production_files  # the shadow wrote nothing of production's
    assert _digests(savepoint["location"]) == savepoint_files
