"""Every network hop of ``lookup.http`` is checked: each request, each redirect's ``Location``, no ``Host``.

With ``Grants(urls=...)`` (what the studio hands a run) every address the lookup is about
to reach -- the record's own, then each ``Location`` of a redirect -- must lie below a
granted address; without grants (the engine alone) a redirect is followed on the same
origin only. A refused hop fails the record's lookup with a message naming the node and
the address (``on_error`` decides what that does to the job), and the refused address is
never contacted. Both deployments: threads and Spark.
"""
from __future__ import annotations

import http.server
import json
import threading

import pytest

from engine.api import Grants, ValidationError, validate_definition


class Origin:
    """A real HTTP server on a loopback port: ``/redirect/<key>`` answers 302 to ``locations[key]``, anything
    else a JSON body naming the path; it records every request."""

    def __init__(self):
        self.locations: dict[str, str] = {}
        self.requests: list[tuple[str, str]] = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                origin.requests.append((self.path, self.headers.get("Host", "")))
                key = self.path.rsplit("/", 1)[-1]
                if "/redirect/" in self.path and key in origin.locations:
                    self.send_response(302)
                    self.send_header("Location", origin.locations[key])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps({"path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def origins():
    granted, other = Origin(), Origin()
    granted.locations.update({
        "port": f"{other.url}/x",  # another port of the same host
        "name": f"http://localhost:{granted.port}/api/ok",  # the same server under another name
        "path": "/admin/x",  # the granted origin, outside the granted path
        "inside": f"{granted.url}/api/ok",
        "loop": f"{granted.url}/api/redirect/loop"})
    yield granted, other
    granted.close()
    other.close()


def lookup_job(url_expression: str, headers: dict | None = None) -> dict:
    return {"format": 1, "name": "lookups", "parallelism": 1, "checkpointing": {"interval_ms": 200},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 2}},
                      {"id": "ask", "type": "lookup.http", "params": {"url": url_expression, "headers": headers or {}}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "gen", "to": "ask"}, {"id": "e2", "from": "ask", "to": "out"}]}


@pytest.mark.parametrize("hop", ["port", "name", "path", "loop"])
def test_no_redirect_is_followed_out_of_the_grants(deployment, tmp_path, origins, hop):
    granted, other = origins
    result = deployment.run(lookup_job(f'"{granted.url}/api/redirect/{hop}"'), checkpoint_dir=str(tmp_path),
                            grants=Grants(urls=(f"{granted.url}/api",)))
    assert result.status == "FAILED", result.failure
    assert "node 'ask'" in result.failure and "redirect" in result.failure, result.failure
    assert other.requests == []
    assert all(path.startswith("/api/redirect/") for path, _ in granted.requests), granted.requests


def test_a_redirect_inside_the_grants_is_followed(deployment, tmp_path, origins):
    granted, other = origins
    result = deployment.run(lookup_job(f'"{granted.url}/api/redirect/inside"'), checkpoint_dir=str(tmp_path),
                            grants=Grants(urls=(f"{granted.url}/api",)))
    assert result.status == "FINISHED", result.failure
    assert result.collected["out"] == [[0, {"path": "/api/ok"}], [1, {"path": "/api/ok"}]]


def test_an_address_outside_the_grants_is_not_reached(deployment, tmp_path, origins):
    """The studio checks the address's literal head when the definition is validated; the lookup checks each
    address it is about to reach all the same."""
    granted, other = origins
    result = deployment.run(lookup_job(f'f"{other.url}/{{x}}"'), checkpoint_dir=str(tmp_path),
                            grants=Grants(urls=(f"{granted.url}/api",)))
    assert result.status == "FAILED" and "node 'ask'" in result.failure, result.failure
    assert other.requests == []


def test_without_grants_a_redirect_stays_on_its_origin(tmp_path, origins):
    from tests.engine.deployers import InProcessDeployment

    granted, other = origins
    deployment = InProcessDeployment()
    refused = deployment.run(lookup_job(f'"{granted.url}/api/redirect/port"'), checkpoint_dir=str(tmp_path / "a"))
    assert refused.status == "FAILED" and "redirect" in refused.failure and other.requests == []
    followed = deployment.run(lookup_job(f'"{granted.url}/api/redirect/path"'), checkpoint_dir=str(tmp_path / "b"))
    assert followed.status == "FINISHED", followed.failure
    assert followed.collected["out"][0] == [0, {"path": "/admin/x"}]


@pytest.mark.parametrize("name", ["Host", "host", "HOST ", ":authority", "X-A\r\nHost"])
def test_the_host_header_cannot_be_set(deployment, tmp_path, origins, name):
    granted, other = origins
    definition = lookup_job(f'f"{granted.url}/api/{{x}}"', headers={name: f"127.0.0.1:{other.port}"})
    problems = validate_definition(definition)
    assert any(problem["node"] == "ask" and problem["field"] == "params.headers" for problem in problems), problems
    with pytest.raises(ValidationError, match="params.headers"):  # a job is validated when it is submitted
        deployment.run(definition, checkpoint_dir=str(tmp_path), grants=Grants(urls=(f"{granted.url}/api",)))
    assert granted.requests == [] and other.requests == []
