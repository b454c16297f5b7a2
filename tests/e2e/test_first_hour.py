"""A newcomer's first hour in the studio, in Chromium, as they told it: a streaming source that
stays streaming, a window the editor warns about before anything runs, a rescale that keeps
its rate and takes them to where the job went, a restart that offers only what still exists,
and runs that say how they ended.

Each story looks at its pages at 1440×900 and at 1280×720 (``look``): the screenshots are in
``test-results/first-hour/``.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, connect, wait_for_run
from tests.support import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

SIZES = ((1440, 900), (1280, 720))


def look(page, artifacts, name: str) -> None:
    """Screenshots of the page as it is, at both sizes a person uses (the viewport comes back after)."""
    folder = artifacts / "first-hour"
    folder.mkdir(exist_ok=True)
    before = page.viewport_size
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(250)  # the graph fits itself to the new size
        page.screenshot(path=str(folder / f"{name}-{width}.png"))
    page.set_viewport_size(before)


def add(page, *operators: str):
    for operator in operators:
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(len(operators))
    return [nodes.nth(index) for index in range(len(operators))]


def test_a_new_sequence_generator_is_unbounded_until_given_a_count(live_studio, page, artifacts):
    page.goto(live_studio + "/")
    [source] = add(page, "source.datagen")
    source.click()
    count = page.get_by_test_id("param-count")
    look(page, artifacts, "3-datagen-count")
    expect(count).to_have_value("")
    expect(count).to_have_attribute("placeholder", "unbounded")
    expect(page.get_by_text("empty for an unbounded stream")).to_be_visible()


def test_a_window_without_event_time_is_a_problem_on_its_node_before_any_preview(live_studio, page, artifacts):
    page.goto(live_studio + "/")
    source, window, sink = add(page, "source.datagen", "window.tumbling", "sink.collect")
    connect(page, source, window)
    connect(page, window, sink)
    window.click()
    page.get_by_test_id("param-size_ms").fill("1000")
    page.locator('[data-testid^="edge-label-"]', has_text="hash").click()
    page.get_by_test_id("edge-key").fill("x % 3")
    problem = page.get_by_test_id("problem").filter(has_text="needs event time")
    expect(problem).to_have_count(1, timeout=10_000)
    look(page, artifacts, "2-window-without-event-time")
    expect(problem).to_contain_text("'window.tumbling' needs event time, but its input from")
    expect(problem).to_contain_text("put a watermark operator (transform.watermark) upstream")
    expect(window).to_have_class(re.compile("has-problems"))
    expect(page.get_by_test_id("validation-status")).not_to_have_text("Valid")

    page.get_by_test_id("tab-preview").click()
    page.get_by_test_id("preview-run").click()
    expect(page.get_by_test_id("preview-panel")).to_contain_text("needs event time", timeout=15_000)
    look(page, artifacts, "2-window-preview-refused")


def rated_pipeline(name: str) -> dict:
    """An unbounded, rate-limited sequence into a collect sink that keeps everything."""
    return {"format": 1, "name": name, "mode": "streaming", "parallelism": 1,
            "checkpointing": {"interval_ms": 500},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"rate": 200}},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}}],
            "edges": [{"id": "e1", "from": "gen", "to": "out"}]}


def source_subtasks(page, live_studio, run_id: int) -> list[int]:
    node = api_call(page, live_studio, "GET", f"/api/runs/{run_id}/metrics").get("nodes", {}).get("gen") or {}
    return [int(subtask.get("records_out") or 0) for subtask in node.get("subtasks", [])]


def rescale_here(page, live_studio, run_id: int, parallelism: int) -> int:
    """Rescale the run from its page; the page takes the user to the new run, which is returned."""
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    wait_for_run(page, live_studio, run_id, lambda run: run["last_checkpoint"] is not None, timeout=120)
    page.get_by_test_id("rescale").click()
    page.get_by_test_id("rescale-parallelism").fill(str(parallelism))
    page.get_by_test_id("rescale-confirm").click()
    expect(page).not_to_have_url(re.compile(rf"/runs/{run_id}$"), timeout=240_000)
    expect(page.get_by_test_id("restored-from")).to_contain_text(f"run #{run_id}", timeout=30_000)
    return int(page.url.rsplit("/", 1)[1])


@pytest.mark.spark
def test_rescaling_a_rate_limited_source_keeps_its_rate_and_takes_the_user_to_the_new_run(live_studio, page,
                                                                                            artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "first-hour-rescale", "definition": rated_pipeline("first-hour-rescale")})
    first = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})["id"]
    page.goto(f"{live_studio}/runs/{first}")
    second = rescale_here(page, live_studio, first, 2)

    # Both subtasks of the source emit: 100 records a second each, 200 together, as before the rescale.
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    wait_until(lambda: (lambda counts: len(counts) == 2 and min(counts) >= 300)(
        source_subtasks(page, live_studio, second)), 120, "both source subtasks to emit")
    page.get_by_test_id("node-gen").click()
    expect(page.get_by_test_id("subtask-row")).to_have_count(2)
    look(page, artifacts, "1-rescaled-to-2")
    counts = source_subtasks(page, live_studio, second)
    assert min(counts) >= 0.6 * max(counts), f"the source's subtasks emitted {counts}"

    # The old run says where the job went, and that is its main action.
    page.goto(f"{live_studio}/runs/{first}")
    banner = page.get_by_test_id("continued-as")
    expect(banner).to_contain_text(f"Rescaled (parallelism 1 -> 2): this job continues as run #{second}.",
                                   timeout=30_000)
    look(page, artifacts, "7-old-run-after-rescale")
    expect(page.get_by_test_id("continued-as-link")).to_have_class(re.compile("button--primary"))
    expect(page.get_by_test_id("restart")).not_to_have_class(re.compile("button--primary"))
    page.get_by_test_id("continued-as-link").click()
    expect(page).to_have_url(re.compile(rf"/runs/{second}$"))

    third = rescale_here(page, live_studio, second, 1)
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    wait_until(lambda: sum(source_subtasks(page, live_studio, third)) >= 300, 120, "the source to emit at p=1")
    api_call(page, live_studio, "POST", f"/api/runs/{third}/stop", {"drain": False})
    runs = [wait_for_run(page, live_studio, run_id, lambda run: run["ended_at"] is not None, timeout=240)
            for run_id in (first, second, third)]
    assert [run["status"] for run in runs] == ["FINISHED"] * 3, [run.get("failure_cause") for run in runs]
    seen = sorted(record for run in runs for record in run["collected"]["out"])
    assert len(seen) == len(set(seen)), "a number was emitted twice"
    assert seen[:len(seen) - 100] == list(range(len(seen) - 100)), "a number went missing"

    # The Jobs list says its order, and how each run ended.
    page.goto(f"{live_studio}/jobs")
    expect(page.get_by_test_id("jobs-order")).to_have_text(
        "Running first, newest start first; then ended, newest end first")
    rows = page.get_by_test_id("job-row")
    expect(rows.first).to_be_visible()
    look(page, artifacts, "10-jobs-list")
    for run_id, text in ((first, f"rescaled (parallelism 1 -> 2) → #{second}"),
                         (second, f"rescaled (parallelism 2 -> 1) → #{third}"), (third, "stopped with a savepoint")):
        expect(page.locator(f'[data-testid="job-row"][data-run="{run_id}"]')).to_contain_text(text)


@pytest.mark.spark
def test_restart_offers_only_what_still_exists_newest_first_with_time_and_size(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "first-hour-retention", "definition": rated_pipeline("first-hour-retention")})
    run_id = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})["id"]
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    page.get_by_test_id("run-tab-schedules").click()
    page.get_by_test_id("schedule-interval").fill("2")
    page.get_by_test_id("schedule-retain").fill("1")
    page.get_by_test_id("schedule-add").click()
    expect(page.get_by_test_id("schedule")).to_contain_text("every 2 s · keeps 1")

    def deleted_savepoints() -> list[dict]:
        found, after = [], 0
        while events := api_call(page, live_studio, "GET", f"/api/runs/{run_id}/events?after={after}"):
            after = events[-1]["seq"]
            found += [event["data"] for event in events if event["type"] == "checkpoint"
                      and event["data"].get("event") == "discarded" and event["data"].get("kind") != "checkpoint"]
        return found
    wait_until(lambda: len(deleted_savepoints()) >= 2, 120, "retention to delete two scheduled savepoints")
    [schedule] = api_call(page, live_studio, "GET", "/api/schedules")
    api_call(page, live_studio, "DELETE", f"/api/schedules/{schedule['id']}")
    api_call(page, live_studio, "POST", f"/api/runs/{run_id}/stop", {"drain": False})
    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=60_000)

    page.reload()
    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=30_000)
    page.get_by_test_id("restart").click()
    options = page.get_by_test_id("restore-option")
    expect(options.first).to_be_visible(timeout=15_000)
    look(page, artifacts, "4-restart-picker")
    deleted = deleted_savepoints()
    gone = {data["external_path"].rsplit("/", 1)[-1] for data in deleted}
    texts = options.all_inner_texts()
    assert not [text for text in texts if any(name in text for name in gone)], (texts, gone)
    ids = [int(option.get_attribute("data-id")) for option in options.all()]
    assert ids == sorted(ids, reverse=True), ids
    expect(options.first).to_contain_text("stop with savepoint")
    expect(options.first).to_contain_text(re.compile(r"\d+(\.\d)? (B|KiB)"))  # its size, after its time
    banner = page.get_by_test_id("savepoint-status")
    if banner.count():
        assert not any(name in banner.inner_text() for name in gone)

    # A deleted savepoint typed as a path: the dialog says it is not there any more.
    page.get_by_test_id("restore-path").fill(deleted[0]["external_path"])
    page.get_by_test_id("restart-confirm").click()
    error = page.get_by_test_id("restart-dialog").locator(".error-text")
    expect(error).to_contain_text("there is no completed checkpoint or savepoint at", timeout=10_000)
    look(page, artifacts, "4-restart-deleted-path")
    expect(error).not_to_contain_text("_metadata")
