"""The browser tests' REST helper answers a shed read as the app's client does (frontend/src/api/client.ts); their
login step waits out a busy studio and fails at once on a refusal."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.e2e.browser_steps import MAX_READ_RETRIES, api_call, log_in

pytestmark = pytest.mark.e2e


class Overloaded(BaseHTTPRequestHandler):
    """Sheds the first ``shed`` requests with 503 + Retry-After, as studio.load_shedding does, then answers."""

    shed = 0
    shed_status = 503
    seen: list[str] = []

    def _answer(self):
        type(self).seen.append(self.command)
        if len(type(self).seen) <= type(self).shed:
            body, status, headers = ({"detail": "the studio is overloaded; retry in a moment"}, type(self).shed_status,
                                     {"Retry-After": "0"})
        else:
            body, status, headers = {"ok": True}, 200, {}
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "Content-Length": str(len(data)), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def overloaded():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Overloaded)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Overloaded.seen, Overloaded.shed_status = [], 503
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    context.add_cookies([{"name": "csrftoken", "value": "t", "url": "http://127.0.0.1"}])
    yield context.new_page()
    context.close()


def test_a_shed_read_is_sent_again_after_its_retry_after(overloaded, page):
    _, url = overloaded
    Overloaded.shed = MAX_READ_RETRIES
    assert api_call(page, url, "GET", "/api/runs/1") == {"ok": True}
    assert Overloaded.seen == ["GET"] * (MAX_READ_RETRIES + 1)


def test_a_read_shed_too_often_fails_with_the_studios_answer(overloaded, page):
    _, url = overloaded
    Overloaded.shed = MAX_READ_RETRIES + 1
    with pytest.raises(AssertionError, match="GET /api/runs/1: 503 .*overloaded"):
        api_call(page, url, "GET", "/api/runs/1")


def test_a_shed_write_is_not_sent_twice(overloaded, page):
    _, url = overloaded
    Overloaded.shed = 1
    with pytest.raises(AssertionError, match="POST /api/pipelines: 503"):
        api_call(page, url, "POST", "/api/pipelines", {"name": "x"})
    assert Overloaded.seen == ["POST"]


def test_logging_in_waits_out_a_busy_studio(overloaded, page):
    _, url = overloaded
    Overloaded.shed = 1
    log_in(page.context, url, "pw", "carol")
    assert Overloaded.seen == ["POST", "POST"]


def test_a_refused_login_fails_at_once(overloaded, page):
    _, url = overloaded
    Overloaded.shed, Overloaded.shed_status = 1, 403
    with pytest.raises(AssertionError):
        log_in(page.context, url, "wrong", "carol")
    assert Overloaded.seen == ["POST"]
