"""The state browser reads what a plain-Python replay of the input up to a snapshot computes.

A window job and a join run (on threads and on Spark); two savepoints are taken while they
run; the browser's keys and states of each equal the replay of the input up to that
savepoint's source positions, and its diff of the two equals the difference of the two replays.
"""
from __future__ import annotations

import time

import pytest

from engine.api import SnapshotBrowser, load_checkpoint_metadata
from tests.engine.snapshots.replay import (emitted, join_job, sliding_panes, sorted_records, window_join_buffers,
                                           window_job)
from tests.support import wait_until

pytestmark = pytest.mark.timeout(300)


def _two_savepoints(deployment, definition: dict, tmp_path) -> list[dict]:
    """Run ``definition``, take two savepoints while its sources advance, cancel; their metadata."""
    events: list[dict] = []
    handle = deployment.submit(definition, checkpoint_dir=str(tmp_path / "checkpoints"), on_event=events.append)
    try:
        wait_until(lambda: any(event.get("status") == "RUNNING" for event in events), 120, "the job to run")
        locations = []
        for _ in range(2):
            time.sleep(0.4)  # let the source move on: the two snapshots differ
            locations.append(handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=120))
    finally:
        handle.cancel()
        handle.wait(120)
    return [load_checkpoint_metadata(location) for location in locations]


def _all_rows(browser: SnapshotBrowser, node_id: str) -> list[dict]:
    rows, offset = [], 0
    while True:
        page = browser.keys(node_id, offset=offset, limit=7)  # small pages: paging is part of what is proven
        rows += page["rows"]
        offset += 7
        if offset >= page["total"]:
            return rows


def test_window_state_equals_the_replay_and_the_diff_the_difference_of_replays(deployment, tmp_path):
    definition = window_job()
    snapshots = _two_savepoints(deployment, definition, tmp_path)
    browsers = [SnapshotBrowser(metadata, definition, tmp_path / "cache") for metadata in snapshots]
    replays = []
    for browser in browsers:
        numbers = emitted(_all_rows(browser, "gen"))
        assert numbers, "the source read nothing before the savepoint"
        expected = sliding_panes(numbers)
        shown = {row["key"]: row["state"] for row in _all_rows(browser, "win")}
        assert shown == expected
        assert [row["key"] for row in _all_rows(browser, "win")] == sorted(expected)  # keys in order
        replays.append(expected)
        overview = {operator["node"]: operator for operator in browser.overview()["operators"]}
        assert overview["win"]["kind"] == "windows (panes and timers)"
        assert overview["win"]["rows"] == len(expected)
        assert overview["gen"]["kind"] == "source offsets and splits"
        sizes = browser.sizes("win")
        assert sum(group["rows"] for group in sizes["key_groups"]) == len(expected)
        assert sum(group["bytes"] for group in sizes["key_groups"]) == sizes["bytes"] == overview["win"]["bytes"]

    before, after = replays
    expected_changes = {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(key for key in set(before) & set(after) if before[key] != after[key]),
    }
    assert expected_changes["added"] and expected_changes["changed"], "the input should add keys and extend some"
    diff = browsers[1].diff(browsers[0], "win", limit=1000)
    assert diff["counts"] == {**{kind: len(keys) for kind, keys in expected_changes.items()},
                              "unchanged": len(set(before) & set(after)) - len(expected_changes["changed"])}
    for kind, keys in expected_changes.items():
        rows = browsers[1].diff(browsers[0], "win", change=kind, limit=1000)["rows"]
        assert [row["key"] for row in rows] == keys
        for row in rows:
            assert (row["before"], row["after"]) == (before.get(row["key"]), after.get(row["key"]))


def test_join_buffers_equal_the_replay(deployment, tmp_path):
    definition = join_job()
    metadata = _two_savepoints(deployment, definition, tmp_path)[1]
    browser = SnapshotBrowser(metadata, definition, tmp_path / "cache")
    expected = window_join_buffers(emitted(_all_rows(browser, "clicks")), emitted(_all_rows(browser, "buys")))
    shown = {row["key"]: sorted_records(row["state"]) for row in _all_rows(browser, "join")}
    assert shown == expected
    kinds = {operator["node"]: operator["kind"] for operator in browser.overview()["operators"]}
    assert kinds["join"] == "join buffers (per window)"


def test_search_by_text_and_by_key_expression_and_one_key(tmp_path):
    from tests.engine.deployers import InProcessDeployment

    definition = window_job()
    metadata = _two_savepoints(InProcessDeployment(), definition, tmp_path)[0]
    browser = SnapshotBrowser(metadata, definition, tmp_path / "cache")
    rows = _all_rows(browser, "win")
    even = browser.keys("win", key_expression="key % 2 == 0", limit=1000)
    assert [row["key"] for row in even["rows"]] == [row["key"] for row in rows if row["key"] % 2 == 0]
    busy = browser.keys("win", key_expression='len(state["panes"]) > 2', limit=1000)
    assert [row["key"] for row in busy["rows"]] == [row["key"] for row in rows if len(row["state"]["panes"]) > 2]
    needle = rows[-1]["state"]["panes"][0]["window"][1]
    found = browser.keys("win", search=f'"window":[{needle - 1000},{needle}]', limit=1000)
    assert found["total"] >= 1 and all(
        any(pane["window"] == [needle - 1000, needle] for pane in row["state"]["panes"]) for row in found["rows"])
    one = browser.key("win", rows[3]["key_json"])
    assert one["state"] == rows[3]["state"] and one["key"] == rows[3]["key"]
    assert browser.key("win", '"no such key"') is None
    with pytest.raises(ValueError):
        browser.keys("win", key_expression="__import__('os')")


def test_export_as_json_lines_and_parquet_holds_every_row(tmp_path):
    import json

    import pyarrow.parquet as pq

    from tests.engine.deployers import InProcessDeployment

    definition = window_job()
    metadata = _two_savepoints(InProcessDeployment(), definition, tmp_path)[0]
    browser = SnapshotBrowser(metadata, definition, tmp_path / "cache")
    rows = _all_rows(browser, "win")
    assert browser.export("win", "jsonl", tmp_path / "win.jsonl") == len(rows)
    lines = [json.loads(line) for line in (tmp_path / "win.jsonl").read_text().splitlines()]
    assert [(line["key"], line["key_group"], line["state"]) for line in lines] == [
        (row["key"], row["key_group"], row["state"]) for row in rows]
    assert browser.export("win", "parquet", tmp_path / "win.parquet") == len(rows)
    table = pq.read_table(tmp_path / "win.parquet").to_pydict()
    assert [json.loads(state) for state in table["state"]] == [row["state"] for row in rows]
    with pytest.raises(ValueError):
        browser.export("win", "csv", tmp_path / "win.csv")
