"""A shadow run end to end on Spark: production runs, a candidate changes its filter, the diff is what the change does.

Production (gen -> keep -> file) runs through the real Celery worker and driver; the shadow
takes a savepoint of it, runs both versions from it as one job on Spark in its sandbox, and
its diff equals a plain-Python computation from the savepoint's source position (read through
the state browser). Production's committed output, its savepoint and its final output (every
record exactly once) are as if no shadow had run.
"""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from engine.api import committed_records
from studio.models import Checkpoint, Run
from studio.runs.snapshots import verified_snapshot
from studio.shadows.models import ShadowRun
from tests.builders import edge, node, pipeline
from tests.studio.test_live_run import RUN_START_TIMEOUT, status_of
from tests.support import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark, pytest.mark.timeout(900)]
COUNT, RATE = 4000, 200
PRODUCTION, CANDIDATE = "x % 3 != 0", "x % 5 != 0"


def filtering(predicate: str, out: str) -> dict:
    return pipeline([node("gen", "source.datagen", count=COUNT, rate=RATE), node("keep", "transform.filter",
                                                                              predicate=predicate),
                     node("out", "sink.file", path=out)],
                    [edge("gen", "keep"), edge("keep", "out")], interval_ms=500, name="filtered")


def digests(directory: str) -> dict:
    """SHA-256 of every committed file (in-progress and pending files are hidden, and change as production runs)."""
    found = {}
    for root, _, names in os.walk(directory):
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, directory)] = hashlib.sha256(handle.read()).hexdigest()
    return found


def expected_diff(numbers: list[int]) -> dict:
    ours = [x for x in numbers if eval(PRODUCTION)]  # noqa: S307 - the test's own constant predicates
    theirs = [x for x in numbers if eval(CANDIDATE)]  # noqa: S307
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    return {"counts": {"production": len(ours), "candidate": len(theirs), "only_production": len(only_ours),
                       "only_candidate": len(only_theirs), "changed": 0, "same": len(ours) - len(only_ours)},
            "only_production": sorted(only_ours, key=json.dumps), "only_candidate": sorted(only_theirs, key=json.dumps)}


def start_shadowed_production(api, out: str) -> tuple[int, int]:
    """A RUNNING production of v1 that committed some output, and v2 (the candidate) saved: (run id, pipeline id)."""
    created = api.post("/api/pipelines", {"name": "filtered", "definition": filtering(PRODUCTION, out)}, format="json")
    assert created.status_code == 201, created.content
    pipeline_id = created.json()["id"]
    run_id = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]
    wait_until(lambda: status_of(run_id) == "RUNNING", RUN_START_TIMEOUT, "production to be RUNNING")
    wait_until(lambda: len(committed_records(out)) > 20, 120, "production to commit output")
    saved = api.put(f"/api/pipelines/{pipeline_id}", {"name": "filtered", "definition": filtering(CANDIDATE, out),
                                                     "message": "keep multiples of 3, drop multiples of 5"},
                    format="json")
    assert saved.status_code == 200, saved.content
    return run_id, pipeline_id


def test_a_shadows_diff_is_what_the_filter_change_does_and_production_is_untouched(
        celery_worker_process, api, granted_tmp_path):
    out = str(granted_tmp_path / "production-out")
    run_id, _ = start_shadowed_production(api, out)
    before = digests(out)

    created = api.post(f"/api/runs/{run_id}/shadows", {"candidate_version": 2, "max_seconds": 120}, format="json")
    assert created.status_code == 201, created.content
    shadow_id = created.json()["id"]
    wait_until(lambda: ShadowRun.objects.get(pk=shadow_id).is_ended, 600, "the shadow to end")
    shadow = api.get(f"/api/runs/{run_id}/shadows/{shadow_id}").json()
    assert shadow["status"] == "COMPLETED", shadow["failure"]
    assert shadow["ended_by"] == "input_end" and shadow["shared"] == ["gen"]

    split = api.get(f"/api/runs/{run_id}/checkpoints/{shadow['checkpoint_id']}/state/operators/gen/keys").json()
    state = split["rows"][0]["state"]
    expected = expected_diff(list(range(state["next"], COUNT, state["step"])))
    (diff,) = shadow["diff"]
    assert diff["node"] == "out" and not diff["keyed"]
    assert diff["counts"] == expected["counts"]
    assert diff["samples"]["only_production"] == expected["only_production"][:20]
    assert diff["samples"]["only_candidate"] == expected["only_candidate"][:20]
    page = api.get(f"/api/runs/{run_id}/shadows/{shadow_id}/outputs/out", {"side": "candidate", "limit": 1000}).json()
    assert page["total"] == expected["counts"]["candidate"]

    # production: what it had committed is as it was, its savepoint is intact, and it ends with every record once
    assert {name: digest for name, digest in digests(out).items() if name in before} == before
    savepoint = Checkpoint.objects.get(run_id=run_id, checkpoint_id=shadow["checkpoint_id"])
    assert verified_snapshot(Run.objects.get(pk=run_id).created_by, savepoint.external_path)  # digests unchanged
    assert not savepoint.external_path.startswith(ShadowRun.objects.get(pk=shadow_id).output_dir)
    wait_until(lambda: status_of(run_id) == "FINISHED", 300, "production to finish its input")
    assert sorted(committed_records(out)) == [x for x in range(COUNT) if x % 3 != 0]

    discarded = api.post(f"/api/runs/{run_id}/shadows/{shadow_id}/discard")
    assert discarded.json()["status"] == "DISCARDED"
    assert not os.path.exists(ShadowRun.objects.get(pk=shadow_id).output_dir)
