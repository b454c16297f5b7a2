"""The state browser over REST: a run's savepoints of a window job and a join, shown as a plain-Python replay computes.

Real jobs write real signed savepoints (the engine on threads here, with the run's signer; the
engine's own tests read the same on Spark, and the browser story in ``tests/e2e`` browses a run on
Spark), the rows of the run's checkpoints point at them, and every read goes through the REST
API and a budgeted worker. Then as a hostile second user: another user's run is a 404, a row
pointed at another pipeline's snapshot, a snapshot rewritten after it was signed, an unfinished
checkpoint are refused (409), bad parameters are 400s naming them.
"""
from __future__ import annotations

import io
import json
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from engine.api import InProcess, load_checkpoint_metadata, submit
from studio.models import Checkpoint, Pipeline, Run
from studio.runs.snapshots import signer_for
from tests.engine.snapshots.replay import emitted, join_job, sliding_panes, sorted_records, window_join_buffers, window_job
from tests.studio.test_api import create_pipeline
from tests.support import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(300)]


def _run_with_savepoints(api, user, definition: dict, tmp_path: Path, count: int = 2) -> Run:
    """A FINISHED run of ``definition`` whose job took ``count`` savepoints (rows 1..count) while its sources moved."""
    pipeline = Pipeline.objects.get(pk=create_pipeline(api, definition, name=definition["name"])["id"])
    run = Run.objects.create(pipeline=pipeline, version=pipeline.latest_version(), created_by=user, status="FINISHED")
    events: list[dict] = []
    handle = submit(definition, InProcess(), checkpoint_dir=str(tmp_path / f"run-{run.pk}"), on_event=events.append,
                    signer=signer_for(run))
    try:
        wait_until(lambda: any(event.get("status") == "RUNNING" for event in events), 120, "the job to run")
        for number in range(1, count + 1):
            time.sleep(0.4)  # let the sources move on: the savepoints differ
            location = handle.trigger_savepoint(str(tmp_path / f"savepoints-{run.pk}")).result(timeout=120)
            checkpoint_id = load_checkpoint_metadata(location)["checkpoint_id"]
            Checkpoint.objects.create(run=run, checkpoint_id=checkpoint_id, kind="savepoint", status="COMPLETED",
                                      trigger_timestamp=number, external_path=location)
    finally:
        handle.cancel()
        handle.wait(120)
    return run


def _ids(run: Run) -> list[int]:
    return sorted(Checkpoint.objects.filter(run=run).values_list("checkpoint_id", flat=True))


def _state(run: Run, checkpoint_id: int) -> str:
    return f"/api/runs/{run.pk}/checkpoints/{checkpoint_id}/state"


def _all_rows(api, run: Run, checkpoint_id: int, node: str) -> list[dict]:
    rows, offset = [], 0
    while True:
        response = api.get(f"{_state(run, checkpoint_id)}/operators/{node}/keys", {"offset": offset, "limit": 7})
        assert response.status_code == 200, response.content
        page = response.json()
        rows += page["rows"]
        offset += 7
        if offset >= page["total"]:
            return rows


@pytest.fixture
def window_run(api, user, tmp_path):
    return _run_with_savepoints(api, user, window_job(), tmp_path)


def test_a_window_jobs_keys_and_diff_equal_the_replays(api, window_run):
    run = window_run
    replays = []
    for checkpoint_id in _ids(run):
        overview = api.get(_state(run, checkpoint_id)).json()
        operators = {operator["node"]: operator for operator in overview["operators"]}
        assert overview["checkpoint_id"] == checkpoint_id and overview["kind"] == "savepoint"
        assert operators["win"]["kind"] == "windows (panes and timers)"
        assert operators["gen"]["kind"] == "source offsets and splits"
        expected = sliding_panes(emitted(_all_rows(api, run, checkpoint_id, "gen")))
        shown = _all_rows(api, run, checkpoint_id, "win")
        assert {row["key"]: row["state"] for row in shown} == expected
        assert [row["key"] for row in shown] == sorted(expected)
        assert operators["win"]["rows"] == len(expected)
        sizes = api.get(f"{_state(run, checkpoint_id)}/operators/win/sizes").json()
        assert sum(group["rows"] for group in sizes["key_groups"]) == len(expected) == sizes["rows"]
        assert sizes["bytes"] == operators["win"]["bytes"]
        one = api.get(f"{_state(run, checkpoint_id)}/operators/win/key", {"key": shown[2]["key_json"]}).json()
        assert one["state"] == expected[shown[2]["key"]]
        replays.append(expected)

    before, after = replays
    earlier, later = _ids(run)
    expected_changes = {"added": sorted(set(after) - set(before)), "removed": sorted(set(before) - set(after)),
                        "changed": sorted(key for key in set(before) & set(after) if before[key] != after[key])}
    assert expected_changes["added"] and expected_changes["changed"]
    diff = api.get(f"{_state(run, later)}/operators/win/diff", {"against": earlier, "limit": 1000}).json()
    assert diff["counts"] == {**{kind: len(keys) for kind, keys in expected_changes.items()},
                              "unchanged": len(set(before) & set(after)) - len(expected_changes["changed"])}
    assert (diff["before"], diff["after"]) == (earlier, later)
    for kind, keys in expected_changes.items():
        rows = api.get(f"{_state(run, later)}/operators/win/diff",
                       {"against": earlier, "change": kind, "limit": 1000}).json()["rows"]
        assert [row["key"] for row in rows] == keys
        assert all((row["before"], row["after"]) == (before.get(row["key"]), after.get(row["key"])) for row in rows)


def test_search_expression_and_export(api, window_run):
    run, checkpoint_id = window_run, _ids(window_run)[0]
    rows = _all_rows(api, run, checkpoint_id, "win")
    keys = f"{_state(run, checkpoint_id)}/operators/win/keys"
    even = api.get(keys, {"expression": "key % 2 == 0", "limit": 1000}).json()
    assert [row["key"] for row in even["rows"]] == [row["key"] for row in rows if row["key"] % 2 == 0]
    pane = rows[-1]["state"]["panes"][0]["window"]
    found = api.get(keys, {"search": json.dumps(pane, separators=(",", ":")), "limit": 1000}).json()
    assert found["total"] >= 1 and all(any(p["window"] == pane for p in row["state"]["panes"]) for row in found["rows"])
    assert api.get(keys, {"offset": 3, "limit": 2}).json()["rows"] == rows[3:5]

    exported = api.get(f"{_state(run, checkpoint_id)}/operators/win/export", {"as": "jsonl"})
    assert exported.status_code == 200 and "attachment" in exported["Content-Disposition"]
    lines = [json.loads(line) for line in b"".join(exported.streaming_content).decode().splitlines()]
    assert [(line["key"], line["state"]) for line in lines] == [(row["key"], row["state"]) for row in rows]
    parquet = api.get(f"{_state(run, checkpoint_id)}/operators/win/export", {"as": "parquet"})
    table = pq.read_table(io.BytesIO(b"".join(parquet.streaming_content))).to_pydict()
    assert [json.loads(state) for state in table["state"]] == [row["state"] for row in rows]
    assert not any((Path(settings_cache()) / "exports").iterdir())  # nothing is left behind


def settings_cache():
    from django.conf import settings

    return settings.STATE_BROWSER_CACHE


def test_a_joins_buffers_equal_the_replay(api, user, tmp_path):
    run = _run_with_savepoints(api, user, join_job(), tmp_path, count=1)
    checkpoint_id = _ids(run)[0]
    expected = window_join_buffers(emitted(_all_rows(api, run, checkpoint_id, "clicks")),
                                   emitted(_all_rows(api, run, checkpoint_id, "buys")))
    shown = {row["key"]: sorted_records(row["state"]) for row in _all_rows(api, run, checkpoint_id, "join")}
    assert shown == expected
    kinds = {operator["node"]: operator["kind"] for operator in api.get(_state(run, checkpoint_id)).json()["operators"]}
    assert kinds["join"] == "join buffers (per window)"


def test_bad_parameters_are_400s_naming_them_and_unknown_things_404s(api, window_run):
    run, checkpoint_id = window_run, _ids(window_run)[0]
    base = _state(run, checkpoint_id)
    for path, params, word in [(f"{base}/operators/win/keys", {"expression": "__import__('os')"}, "expression"),
                               (f"{base}/operators/win/keys", {"limit": 5000}, "limit"),
                               (f"{base}/operators/win/keys", {"offset": "x"}, "offset"),
                               (f"{base}/operators/win/diff", {}, "against"),
                               (f"{base}/operators/win/diff", {"against": checkpoint_id, "change": "all"}, "change"),
                               (f"{base}/operators/win/export", {"as": "csv"}, "as must be"),
                               (f"{base}/operators/win/key", {}, "key")]:
        response = api.get(path, params)
        assert response.status_code == 400, (path, params, response.content)
        assert word in response.json()["detail"], response.json()
    assert api.get(f"{base}/operators/nosuch/keys").status_code == 404
    assert api.get(f"{base}/operators/win/key", {"key": '"nobody"'}).status_code == 404
    assert api.get(_state(run, 999)).status_code == 404
    assert api.get(f"{base}/operators/win/diff", {"against": 999}).status_code == 404


def test_a_hostile_second_user_browses_nothing(api, other_api, user, other_user, window_run, tmp_path):
    run, checkpoint_id = window_run, _ids(window_run)[0]
    base = _state(run, checkpoint_id)
    for path in (base, f"{base}/operators/win/keys", f"{base}/operators/win/sizes", f"{base}/operators/win/export",
                 f"{base}/operators/win/key?key=1", f"{base}/operators/win/diff?against={checkpoint_id}"):
        response = other_api.get(path)
        assert response.status_code == 404, (path, response.content)

    # Bob points a row of his own run at Alice's savepoint: its signature names her pipeline
    bobs_pipeline = Pipeline.objects.get(pk=create_pipeline(other_api, window_job(), name="bob's")["id"])
    bobs_run = Run.objects.create(pipeline=bobs_pipeline, version=bobs_pipeline.latest_version(),
                                  created_by=other_user, status="FINISHED")
    alices = Checkpoint.objects.get(run=run, checkpoint_id=checkpoint_id).external_path
    Checkpoint.objects.create(run=bobs_run, checkpoint_id=1, kind="savepoint", status="COMPLETED",
                              trigger_timestamp=1, external_path=alices)
    response = other_api.get(f"/api/runs/{bobs_run.pk}/checkpoints/1/state")
    assert response.status_code == 409 and "not written by this run's pipeline" in response.json()["detail"]
    # ... or at a copy of it, or a link to it: the same
    copy = tmp_path / "copy"
    shutil.copytree(alices, copy)
    (tmp_path / "link").symlink_to(alices)
    for index, path in enumerate((copy, tmp_path / "link"), start=2):
        Checkpoint.objects.create(run=bobs_run, checkpoint_id=index, kind="savepoint", status="COMPLETED",
                                  trigger_timestamp=1, external_path=str(path))
        assert other_api.get(f"/api/runs/{bobs_run.pk}/checkpoints/{index}/state").status_code == 409


def test_unfinished_rewritten_or_deleted_snapshots_are_refused(api, user, window_run, tmp_path):
    run = window_run
    earlier, later = _ids(run)
    Checkpoint.objects.create(run=run, checkpoint_id=later + 1, status="IN_PROGRESS", trigger_timestamp=9)
    response = api.get(_state(run, later + 1))
    assert response.status_code == 409 and "IN_PROGRESS" in response.json()["detail"]

    location = Path(Checkpoint.objects.get(run=run, checkpoint_id=later).external_path)
    for state_file in location.iterdir():
        if state_file.name != "_metadata":
            state_file.write_bytes(state_file.read_bytes() + b"\0")  # rewritten after it was signed
    response = api.get(f"{_state(run, later)}/operators/win/keys")
    assert response.status_code == 409, response.content
    assert "SHA-256" in response.json()["detail"]

    shutil.rmtree(Checkpoint.objects.get(run=run, checkpoint_id=earlier).external_path)
    response = api.get(_state(run, earlier))
    assert response.status_code == 409 and "deleted" in response.json()["detail"]
