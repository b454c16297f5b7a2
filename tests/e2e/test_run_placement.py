"""In a real browser, on a studio in session mode (``make up``'s default): a small run goes to the shared
Spark session and its page says so and why, the jobs page shows the session's use; marking the pipeline
isolated on the run page moves its next run into a driver and Spark application of its own.

The other stories run on ``live_studio``, whose runs each get a driver of their own (they were written
for warm drivers and their start-up notices); this one starts a studio of its own with the session on.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, log_in
from tests.e2e.conftest import ROOT, STUDIO_START_S, _answers, _free_port, _stop
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

PASSWORD = "e2e-placement"
RUN_START_S = 240  # bounds a hang: a driver of its own starts a Spark JVM, slowly on a loaded 2-core machine


@pytest.fixture(scope="module")
def session_studio(tmp_path_factory):
    """The whole studio as ``make up`` starts it, with its session driver (two slots)."""
    port = _free_port()
    env = {key: value for key, value in os.environ.items()
           if key not in ("REDIS_URL", "DATABASE_URL", "STUDIO_WORKSPACE_ROOT")}
    env.update(STUDIO_DATA_DIR=str(tmp_path_factory.mktemp("session-studio")), STUDIO_PORT=str(port),
               PYTHONPATH=str(ROOT), STUDIO_SESSION_MODE="1", STUDIO_SESSION_SLOTS="2",
               STUDIO_ADMIN_PASSWORD=PASSWORD)
    launcher = subprocess.Popen([sys.executable, "-m", "studio.processes.supervisor"], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: launcher.poll() is not None or _answers(url), STUDIO_START_S, "the studio to answer")
        assert launcher.poll() is None, "the studio launcher exited during start-up"
    except BaseException:
        _stop(launcher)
        raise
    url_and_data = (url, Path(env["STUDIO_DATA_DIR"]))
    yield url_and_data
    alive = _stop(launcher)
    assert not alive, f"processes outlived the studio: {[p.pid for p in alive]}"


def expect_running(page, studio: str, run_id: int, data_dir: Path) -> None:
    """The run's page says RUNNING within ``RUN_START_S``; if not, the failure says where the run stopped:
    its row, its events and the ends of the studio's run logs (CI once saw a run SCHEDULING for 240 s)."""
    try:
        expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUN_START_S * 1000)
    except AssertionError as error:
        run = api_call(page, studio, "GET", f"/api/runs/{run_id}")
        events = api_call(page, studio, "GET", f"/api/runs/{run_id}/events")
        logs = {path.name: path.read_text(errors="replace")[-3000:] for path in sorted((data_dir / "runs").glob("*.log"))}
        summary = {key: run.get(key) for key in ("status", "placement", "placement_reason", "failure_cause", "heartbeat_at")}
        raise AssertionError(f"run {run_id} never RUNNING: {summary}\nevents: {events[-20:]}\nlogs: {logs}") from error


@pytest.fixture
def session_page(browser, session_studio):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    log_in(context, session_studio[0], PASSWORD)
    page = context.new_page()
    yield page
    context.close()


def test_a_small_run_shares_the_session_and_isolating_its_pipeline_moves_the_next_run(
        session_studio, session_page, artifacts):
    page, (studio, data_dir) = session_page, session_studio
    wait_until(lambda: api_call(page, studio, "GET", "/api/session")["serving"], STUDIO_START_S,
               "the session driver to serve")
    definition = simple_pipeline(count=None, rate=20, interval_ms=1000, name="e2e-placement")
    pipeline = api_call(page, studio, "POST", "/api/pipelines", {"name": "e2e-placement", "definition": definition})
    first = api_call(page, studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})

    page.goto(f"{studio}/runs/{first['id']}")
    expect_running(page, studio, first["id"], data_dir)
    placement = page.get_by_test_id("run-placement")
    expect(placement).to_have_attribute("data-placement", "session")
    expect(placement).to_have_text("runs in the shared session: no Python code, secrets or isolation; "
                                   "needs 1 of 2 slots")
    isolated = page.get_by_test_id("pipeline-isolated")
    expect(isolated).not_to_be_checked()
    page.screenshot(path=str(artifacts / "run-placement-session.png"))

    page.locator(".app-nav").get_by_text("Jobs").click()
    expect(page.get_by_test_id("session-use")).to_have_text(re.compile(r"^shared session: 1 run · 1/2 slots · "))
    page.screenshot(path=str(artifacts / "run-placement-jobs.png"))

    page.goto(f"{studio}/runs/{first['id']}")
    page.get_by_test_id("pipeline-isolated").click()  # checked once the studio answered
    expect(page.get_by_test_id("pipeline-isolated")).to_be_checked()
    assert api_call(page, studio, "GET", f"/api/pipelines/{pipeline['id']}")["isolated"] is True
    expect(page.get_by_test_id("run-placement")).to_have_attribute("data-placement", "session")  # this run stays
    api_call(page, studio, "POST", f"/api/runs/{first['id']}/cancel")
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED")

    second = api_call(page, studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{studio}/runs/{second['id']}")
    expect_running(page, studio, second["id"], data_dir)
    placement = page.get_by_test_id("run-placement")
    expect(placement).to_have_attribute("data-placement", "own_driver")
    expect(placement).to_have_text("runs in its own driver: its pipeline is marked isolated")
    expect(page.get_by_test_id("pipeline-isolated")).to_be_checked()
    page.screenshot(path=str(artifacts / "run-placement-own-driver.png"))
    api_call(page, studio, "POST", f"/api/runs/{second['id']}/cancel")
    wait_until(lambda: api_call(page, studio, "GET", f"/api/runs/{second['id']}")["status"] == "CANCELED", 60,
               "the second run to be cancelled")
