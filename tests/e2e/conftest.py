"""The real studio (`python -m studio.processes.supervisor`, as `make up` runs it) and a headless Chromium."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import (
    CHROMIUM_FLAGS,
    admin_password,
    api_call,
    chromium_path,
    log_in,
)
from tests.support import wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-results"

# What an assertion on the page waits for at most (Playwright's own default is 5 s): the studio's pages
# answer in well under a second on a quiet machine, but on a loaded 2-core one running Spark for the
# runs a page shows, loading it and its first events took longer. A passing assertion returns as soon
# as it holds; only a failing one waits this long.
expect.set_options(timeout=30_000)

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# the supervisor's own bound on its web process (180 s) and the migrations before it: a loaded 2-core
# machine took 242 s; a studio that exits early still fails at once
STUDIO_START_S = 300


@pytest.fixture(scope="session")
def live_studio(tmp_path_factory):
    """The whole studio with embedded defaults in a fresh data directory; stopped cleanly after."""
    if not (ROOT / "frontend" / "dist" / "index.html").exists():
        pytest.fail("the frontend is not built: run `make test` (it builds frontend/dist)")
    port = _free_port()
    env = {key: value for key, value in os.environ.items()  # the studio's own, under its data directory
           if key not in ("REDIS_URL", "DATABASE_URL", "STUDIO_WORKSPACE_ROOT")}
    # each run in a driver of its own, as these stories were written (warm drivers, their startup notices)
    env.update(STUDIO_DATA_DIR=str(tmp_path_factory.mktemp("live-studio")), STUDIO_PORT=str(port),
               PYTHONPATH=str(ROOT), STUDIO_SESSION_MODE="0")
    launcher = subprocess.Popen([sys.executable, "-m", "studio.processes.supervisor"], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: launcher.poll() is not None or _answers(url), STUDIO_START_S, "the studio to answer")
        assert launcher.poll() is None, "the studio launcher exited during start-up"
    except BaseException:
        _stop(launcher)  # a studio that never answered is still stopped, its Spark driver and Celery too
        raise
    yield url
    alive = _stop(launcher)
    assert not alive, f"processes outlived the studio: {[p.pid for p in alive]}"


def _stop(launcher: subprocess.Popen) -> list:
    """Ctrl-C the supervisor and wait for everything it started; what is still alive after that."""
    if launcher.poll() is not None:
        return []
    descendants = psutil.Process(launcher.pid).children(recursive=True)
    launcher.send_signal(signal.SIGINT)  # what Ctrl-C does
    try:
        launcher.wait(timeout=60)
    except subprocess.TimeoutExpired:
        launcher.kill()
    _, alive = psutil.wait_procs(descendants, timeout=15)
    for process in alive:
        process.kill()
    return alive


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def browser():
    """Chromium for one test module. Not per session: Playwright's sync API keeps an event loop
    running on the main thread while it is open, and every later test that runs a coroutine
    (asyncio.run, async_to_sync) would fail with "cannot be called from a running event loop"."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_studio, tmp_path_factory):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    # log in as the admin `make up` creates; the session cookie is the context's from here on
    log_in(context, live_studio, admin_password(tmp_path_factory))
    page = context.new_page()
    yield page
    _cancel_active_runs(page, live_studio)
    context.close()


ACTIVE_STATUSES = "CREATED,SCHEDULING,RUNNING,RESTARTING,FINISHING"


def _cancel_active_runs(page, live_studio: str) -> None:
    """Cancel what a test left running (an assertion failed before its own cancel): the studio lives
    for the whole session, and a run left behind would hold Spark slots and CPUs for later tests."""
    runs = api_call(page, live_studio, "GET", f"/api/runs?status={ACTIVE_STATUSES}&page_size=100")
    for run in runs["results"]:
        response = page.context.request.post(f"{live_studio}/api/runs/{run['id']}/cancel", headers=_csrf(page, live_studio))
        assert response.ok or response.status == 409, f"cancel run {run['id']}: {response.status} {response.text()}"
    wait_until(lambda: not api_call(page, live_studio, "GET", f"/api/runs?status={ACTIVE_STATUSES}")["results"],
               60, "the runs a test left behind to end")


def _csrf(page, live_studio: str) -> dict:
    token = next((cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "csrftoken"), "")
    return {"X-CSRFToken": token, "Referer": live_studio + "/"}


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
