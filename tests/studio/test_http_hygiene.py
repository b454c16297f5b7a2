"""HTTP hygiene under /api/: bounded bodies, JSON errors for every status, DEBUG off unless asked for (issue 16)."""
import json
import os
import subprocess
import sys

import pytest
from rest_framework.test import APIClient

from studio.api.parsers import MAX_JSON_DEPTH
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db


def assert_json_error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert isinstance(body.get("detail"), str) and body["detail"]
    return body


def test_a_5_mb_body_is_refused_with_413_before_it_is_read(api):
    padding = "x" * (5 * 2 ** 20)
    response = api.post("/api/pipelines/validate", data=json.dumps({"definition": simple_pipeline(), "pad": padding}),
                        content_type="application/json")
    assert "the limit is 1,048,576" in assert_json_error(response, 413)["detail"]
    assert api.post("/api/pipelines/validate", {"definition": simple_pipeline()}, format="json").status_code == 200


@pytest.mark.parametrize("depth", [10_000, 100_000, MAX_JSON_DEPTH + 1])
def test_json_nested_too_deeply_is_a_400(api, depth):
    body = "[" * depth + "]" * depth
    response = api.post("/api/pipelines/validate", data='{"definition": ' + body + "}",
                        content_type="application/json")
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in assert_json_error(response, 400)["detail"]


def test_json_nested_within_the_limit_is_read(api):
    definition = simple_pipeline()
    definition["ui"] = {"deep": json.loads("[" * (MAX_JSON_DEPTH - 4) + "]" * (MAX_JSON_DEPTH - 4))}
    assert api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()["valid"] is True


def test_every_error_under_api_is_json(api, monkeypatch):
    assert_json_error(api.get("/api/no/such/thing"), 404)
    assert_json_error(api.delete("/api/operators"), 405)
    assert_json_error(api.get("/api/pipelines/999999"), 404)
    assert_json_error(APIClient().get("/api/pipelines"), 401)
    assert_json_error(api.get("/api/pipelines", HTTP_HOST="evil.example"), 400)  # a Host not allowed
    assert_json_error(api.post("/api/pipelines/validate", data="{nope", content_type="application/json"), 400)
    assert_json_error(api.post("/api/pipelines/validate", data="a=1", content_type="text/plain"), 415)

    from studio.api import definitions

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(definitions.OperatorListView, "get", broken)
    body = assert_json_error(api.get("/api/operators"), 500)
    assert "boom" not in body["detail"] and "Traceback" not in body["detail"]


def test_a_failing_view_outside_drf_answers_json_too(api, settings):
    """Django's own handlers (a 500 raised before DRF, e.g. in middleware) are JSON under /api/."""
    from django.test import Client

    from studio.frontend import server_error

    request = Client().get("/api/x").wsgi_request
    assert json.loads(server_error(request).content) == {"detail": "internal error; see the studio's log"}


def test_debug_is_off_unless_asked_for():
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'studio.settings'; django.setup(); " \
           "from django.conf import settings; print(settings.DEBUG)"
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_DEBUG"}
    run = lambda extra: subprocess.run([sys.executable, "-c", code], env={**env, **extra}, capture_output=True,  # noqa: E731
                                       text=True, timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                                           os.path.abspath(__file__))))).stdout.strip().splitlines()[-1]
    assert run({}) == "False"
    assert run({"DJANGO_DEBUG": "1"}) == "True"


def test_a_wrong_login_is_a_401_with_a_challenge(user):
    response = APIClient().post("/api/auth/login", {"username": "alice", "password": "nope"}, format="json")
    assert assert_json_error(response, 401)["detail"] == "wrong username or password"
    assert response["WWW-Authenticate"]


def test_request_strings_must_be_strings(user):
    client = token_client(user)
    assert_json_error(client.post("/api/auth/tokens", {"name": 0}, format="json"), 400)
    assert client.post("/api/auth/tokens", {"name": "ci"}, format="json").status_code == 201


def definition_with_a_lone_surrogate(where: str) -> str:
    """The JSON a hostile script sends: valid JSON syntax, a node or edge id that is no text."""
    definition = simple_pipeline()
    if where == "node":
        definition["nodes"][0]["id"] = "\ud800"
        definition["edges"][0]["from"] = "\ud800"
    else:
        definition["edges"][1]["id"] = "e\udfff"
    return json.dumps({"definition": definition, "name": "lone"})  # ensure_ascii: "\ud800" on the wire


@pytest.mark.parametrize("where", ["node", "edge"])
@pytest.mark.parametrize("path", ["/api/pipelines/validate", "/api/pipelines", "/api/preview", "/api/plan"])
def test_a_lone_surrogate_in_an_id_is_a_400_naming_where_it_is(api, path, where):
    response = api.post(path, data=definition_with_a_lone_surrogate(where), content_type="application/json")
    detail = assert_json_error(response, 400)["detail"]
    assert ("definition.nodes[0].id" if where == "node" else "definition.edges[1].id") in detail
    assert "lone surrogate" in detail


def test_a_lone_surrogate_in_a_saved_pipelines_change_is_a_400(api):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline()}, format="json").json()
    response = api.put(f"/api/pipelines/{pipeline['id']}", data=definition_with_a_lone_surrogate("node"),
                       content_type="application/json")
    assert "lone surrogate" in assert_json_error(response, 400)["detail"]


def test_preview_records_holding_nan_and_infinities_are_answered_as_their_names(api):
    definition = simple_pipeline(count=3, expression="[float('nan'), float('inf'), -float('inf'), x / 2]")
    response = api.post("/api/preview", {"definition": definition, "limit": 3}, format="json")
    assert response.status_code == 200, response.content[:300]
    body = json.loads(response.content)  # strict JSON: Python's parser would also take NaN tokens
    assert body["nodes"]["double"]["records"][:2] == [["NaN", "Infinity", "-Infinity", 0.0],
                                                     ["NaN", "Infinity", "-Infinity", 0.5]]
    assert b"NaN," not in response.content and b"Infinity," not in response.content


@pytest.mark.django_db(transaction=True)  # the application reads the token in a thread of its own
def test_a_chunked_request_body_is_read(api):
    """A body without Content-Length (Transfer-Encoding: chunked) reaches the application in pieces."""
    from asgiref.sync import async_to_sync
    from asgiref.testing import ApplicationCommunicator

    from studio.asgi import application

    body = json.dumps({"definition": simple_pipeline()}).encode()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/pipelines/validate", "raw_path": b"/api/pipelines/validate", "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"transfer-encoding", b"chunked"), (b"authorization", f"Token {api.token_key}".encode())]}

    async def send_in_pieces():
        communicator = ApplicationCommunicator(application, scope)
        pieces = [body[:10], body[10:100], body[100:]]
        for index, piece in enumerate(pieces):
            await communicator.send_input({"type": "http.request", "body": piece, "more_body": index < 2})
        start = await communicator.receive_output(timeout=30)
        content = await communicator.receive_output(timeout=30)
        return start["status"], json.loads(content["body"])

    assert async_to_sync(send_in_pieces)() == (200, {"valid": True, "errors": [], "warnings": []})


def test_a_chunked_body_over_the_limit_is_a_413(api, settings):
    from asgiref.sync import async_to_sync
    from asgiref.testing import ApplicationCommunicator

    from studio.asgi import application

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/pipelines/validate", "raw_path": b"/api/pipelines/validate", "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"authorization", f"Token {api.token_key}".encode())]}

    async def send_too_much():
        communicator = ApplicationCommunicator(application, scope)
        for _ in range(5):
            await communicator.send_input({"type": "http.request", "body": b" " * 600, "more_body": True})
        await communicator.send_input({"type": "http.request", "body": b"{}", "more_body": False})
        return (await communicator.receive_output(timeout=30))["status"]

    assert async_to_sync(send_too_much)() == 413


def test_the_login_body_is_read_as_every_other_body():
    """The login view has a parser of its own (JSON only): the same limits hold there."""
    anonymous = APIClient()
    nested = anonymous.post("/api/auth/login", data="[" * 10_000 + "]" * 10_000, content_type="application/json")
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in assert_json_error(nested, 400)["detail"]
    lone = anonymous.post("/api/auth/login", data='{"username": "\\ud800", "password": "x"}',
                          content_type="application/json")
    assert "username holds a lone surrogate" in assert_json_error(lone, 400)["detail"]
