"""Steps the browser tests (and the frontend benchmark) share: Chromium, login, drawing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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


def make_user(tmp_path_factory, name: str, password: str) -> None:
    """A second user in the live studio's database, as an administrator would add one."""
    data = sorted(Path(tmp_path_factory.getbasetemp()).glob("live-studio*"))[-1]
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update(STUDIO_DATA_DIR=str(data), PYTHONPATH=str(ROOT))
    script = ("from django.contrib.auth import get_user_model as g; U = g(); "
              f"U.objects.filter(username={name!r}).exists() or U.objects.create_user({name!r}, password={password!r})")
    subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, check=True, timeout=120)


LOGIN_DEADLINE_S = 180  # a studio under a load of 30 took over 30 s to answer its first login


def log_in(context, live_studio: str, password: str, username: str = "admin") -> None:
    """Log the browser context in (its session cookie is the context's from then on). A busy studio may
    time out or answer 503 (SQLite locked) at first: that is retried until the deadline; a refusal (4xx)
    fails at once."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + LOGIN_DEADLINE_S
    while True:
        try:
            login = context.request.post(f"{live_studio}/api/auth/login", timeout=60_000,
                                         data={"username": username, "password": password})
            if login.ok or login.status < 500:
                break
            problem = f"{login.status} {login.text()}"
        except PlaywrightError as error:  # the request timed out or the connection was refused
            problem = str(error)
        if time.monotonic() > deadline:
            raise AssertionError(f"logging in failed until the deadline: {problem}")
        time.sleep(1)
    assert login.ok, login.text()


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


MAX_READ_RETRIES = 3
"""As the app's client (frontend/src/api/client.ts): a read the studio shed with 503 is sent again
after its Retry-After (0.1-5 s), this many times, before its error counts."""


def _retry_after_s(response) -> float:
    try:
        seconds = float(response.headers.get("retry-after", "1"))
    except ValueError:
        seconds = 1.0
    return min(5.0, max(0.1, seconds))


def open_signed_in(page, base_url: str, password: str, start: str = "/") -> None:
    """Open ``start`` in ``page``; when the studio asks for a login there (the ``page`` fixture may have signed
    in already), sign in through the login form as a person does (``log_in`` signs a context in over HTTP)."""
    import re

    from playwright.sync_api import expect

    page.goto(base_url + start)
    page.wait_for_load_state("networkidle")
    if "/login" in page.url:
        page.get_by_test_id("login-password").fill(password)
        page.get_by_test_id("login-submit").click()
        expect(page).not_to_have_url(re.compile(r"/login"), timeout=15_000)


def api_call(page, base_url: str, method: str, path: str, body=None):
    """A REST call with the page's session (and its CSRF token), as the app's own client makes it: an
    overloaded studio sheds reads with 503 + Retry-After (studio.load_shedding), and a read shed is
    sent again after the wait the studio asked for."""
    context = page.context
    if not any(cookie["name"] == "csrftoken" for cookie in context.cookies()):
        context.request.get(f"{base_url}/api/auth/me")
    token = next((cookie["value"] for cookie in context.cookies() if cookie["name"] == "csrftoken"), "")

    def send():
        return context.request.fetch(f"{base_url}{path}", method=method, data=body,
                                     headers={"X-CSRFToken": token, "Referer": base_url + "/"})

    response = send()
    for _ in range(MAX_READ_RETRIES if method in ("GET", "HEAD") else 0):
        if response.status != 503:
            break
        time.sleep(_retry_after_s(response))  # the wait the studio's answer asked for, not a guess
        response = send()
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
