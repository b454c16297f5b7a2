"""Steps the browser tests (and the frontend benchmark) share: Chromium, login, drawing."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""Headless flags for this closed network: without the background-networking ones Chromium
keeps trying to reach hosts it cannot."""


def chromium_path() -> str:
    """The system Chromium (browser downloads are impossible here)."""
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if candidate and Path(candidate).exists():
            return candidate
    found = shutil.which("chromium")
    if not found:
        raise RuntimeError("Chromium is missing: run scripts/ensure_chromium.sh (make test does)")
    return found


def admin_password(tmp_path_factory) -> str:
    """The admin password of the live studio: STUDIO_ADMIN_PASSWORD, else the one it generated."""
    if os.environ.get("STUDIO_ADMIN_PASSWORD"):
        return os.environ["STUDIO_ADMIN_PASSWORD"]
    found = sorted(Path(tmp_path_factory.getbasetemp()).glob("live-studio*/admin-password"))
    assert found, "the live studio wrote no admin-password file"
    return found[-1].read_text().strip()


def connect(page, source_node, target_node, port: str | None = None, side: str | None = None) -> None:
    """Drag from the source node's output handle (or its named output ``port``) to the target node's input
    handle (or, for a join, its named input ``side``)."""
    handle = f".react-flow__handle.source.port-handle[data-handleid='{port}']" if port \
        else ".react-flow__handle.source:not(.port-handle)"
    target = f".react-flow__handle.target[data-handleid='{side}']" if side else ".react-flow__handle.target"
    start = source_node.locator(handle).bounding_box()
    end = target_node.locator(target).bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()


def draw_keyed_pipeline(page, rate: int):
    """Add datagen -> map -> keyed reduce -> collect, connect and parametrise them.

    The hash edge into the reduce has no key yet: callers see that validation error.
    Returns the four node locators.
    """
    from playwright.sync_api import expect

    for operator in ("source.datagen", "transform.map", "aggregate.reduce", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(4)
    source, mapper, reducer, sink = (nodes.nth(index) for index in range(4))
    connect(page, source, mapper)
    connect(page, mapper, reducer)
    connect(page, reducer, sink)
    expect(page.locator(".react-flow__edge")).to_have_count(3)
    source.click()
    page.get_by_test_id("param-count").fill("")
    page.get_by_test_id("param-rate").fill(str(rate))
    mapper.click()
    page.get_by_test_id("param-expression").fill('{"user": x % 5, "n": x}')
    reducer.click()
    page.get_by_test_id("param-value").fill('x["n"]')
    return source, mapper, reducer, sink


def api_call(page, base_url: str, method: str, path: str, body=None):
    """A REST call with the page's session (and its CSRF token), as the app's own client makes it."""
    context = page.context
    if not any(cookie["name"] == "csrftoken" for cookie in context.cookies()):
        context.request.get(f"{base_url}/api/auth/me")
    token = next((cookie["value"] for cookie in context.cookies() if cookie["name"] == "csrftoken"), "")
    response = context.request.fetch(f"{base_url}{path}", method=method, data=body,
                                     headers={"X-CSRFToken": token, "Referer": base_url + "/"})
    assert response.ok, f"{method} {path}: {response.status} {response.text()}"
    return response.json() if response.text() else None


def wait_for_run(page, base_url: str, run_id: int, done, timeout: float = 180):
    """The run over REST once ``done(run)`` holds; polled every half second, failing after ``timeout`` s
    with the run's status and failure."""
    deadline = time.monotonic() + timeout
    while True:
        run = api_call(page, base_url, "GET", f"/api/runs/{run_id}")
        if done(run):
            return run
        assert time.monotonic() < deadline, f"run {run_id}: {run['status']} {run.get('failure_cause')}"
        time.sleep(0.5)
