"""The answers an operation may get whatever its view (``studio.api.schema.document_common_answers``), each
given for real and held against the schema as the conformance story's answers are: 503 + Retry-After from a
full web worker for every operation, 413 from the body limit for every operation that takes a body, 429 from
the throttled login and preview. (Redis down, the other 503: ``test_redis_down``.)"""
from __future__ import annotations

import asyncio
import json

import pytest
from django.core.cache import cache

from studio.api.exceptions import ServiceBusy, exception_handler
from studio.load_shedding import NEVER_SHED, LoadSheddingMiddleware
from tests.studio.openapi_contract import (
    answer,
    case_of,
    documented_statuses,
    mismatches,
    operations,
    schema,
)
from tests.studio.test_load_shedding import HeldApp, request
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db(transaction=True)  # WSGI calls close the connection after each request


def test_every_operation_documents_503_and_retry_after_and_a_full_worker_answers_them():
    shed = [(method, path) for method, path in sorted(operations()) if path not in NEVER_SHED]
    assert shed and all(503 in documented_statuses(*operation) for operation in shed)

    async def answers() -> list[dict]:
        inner = HeldApp()
        worker = LoadSheddingMiddleware(inner, limit=1, retry_after_s=3)
        held = asyncio.create_task(request(worker, "/api/pipelines/1/"))
        while inner.started < 1:
            await asyncio.sleep(0)
        found = [await request(worker, case_of(method, path).formatted_path) for method, path in shed]
        inner.release.set()
        await held
        return found

    problems = []
    for (method, path), shed_answer in zip(shed, asyncio.run(answers())):
        case = case_of(method, path)
        response = answer(method, case.formatted_path, shed_answer["status"],
                          [(name.decode(), value.decode()) for name, value in shed_answer["headers"].items()],
                          shed_answer["body"])
        assert response.status_code == 503 and response.headers["retry-after"] == "3", (method, path)
        problems += mismatches(case, response)
    assert not problems, "\n".join(problems)


def test_every_operation_that_takes_a_body_documents_413_and_answers_it_past_the_limit(user, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64
    settings.BODY_LIMITS_BY_PATH = {"/api/uploads": 128, "/api/uploads/": 128}
    token = token_client(user).token_key
    taking = [(method, path) for method, path in sorted(operations())
              if "requestBody" in schema.raw_schema["paths"][path][method.lower()]]
    assert len(taking) > 30
    problems = []
    for method, path in taking:
        upload = path == "/api/uploads/"
        case = case_of(method, path, body=b"x" * 200 if upload else {"name": "x" * 100},
                       media_type="application/octet-stream" if upload else "application/json",
                       query={"location": "somewhere", "name": "big.csv"} if upload else None)
        headers = {"Authorization": f"Token {token}"}
        response = case.call(headers=headers)
        assert response.status_code == 413, (method, path, response.text[:200])
        problems += mismatches(case, response, headers)
    assert not problems, "\n".join(problems)


def test_throttled_login_and_preview_answer_429_as_documented(user, settings):
    settings.STUDIO_THROTTLE_RATES = {"login": "1/min", "preview": "1/min"}
    cache.clear()
    token = token_client(user).token_key
    calls = [(case_of("POST", "/api/auth/login/", body={"username": "alice", "password": "wrong"},
                      media_type="application/json"), {}),
             (case_of("POST", "/api/preview/", body={"definition": simple_pipeline(count=1), "limit": 1},
                      media_type="application/json"), {"Authorization": f"Token {token}"})]
    problems = []
    for case, headers in calls:
        first, second = case.call(headers=headers), case.call(headers=headers)
        assert (first.status_code, second.status_code) in {(401, 429), (200, 429)}, (case.operation.label,
                                                                                     second.text[:200])
        assert int(second.headers["retry-after"][0]) > 0
        problems += mismatches(case, first, headers) + mismatches(case, second, headers)
    cache.clear()
    assert not problems, "\n".join(problems)


def test_a_busy_worker_pools_503_says_when_to_ask_again_as_documented():
    refused = exception_handler(ServiceBusy("both preview workers are busy"), {})  # as a preview's, a state read's
    assert refused.status_code == 503 and int(refused["Retry-After"]) > 0
    response = answer("POST", "/api/preview/", 503, [("Retry-After", refused["Retry-After"]),
                                                      ("Content-Type", "application/json")], json.dumps(refused.data).encode())
    assert not mismatches(case_of("POST", "/api/preview/", body={}, media_type="application/json"), response)


def test_a_locked_database_answers_503_with_retry_after_as_documented_not_500():
    """100 runs started at once on the embedded SQLite held its writer lock past the busy timeout: 500s."""
    from django.db import OperationalError

    refused = exception_handler(OperationalError("database is locked"), {})
    assert refused.status_code == 503 and int(refused["Retry-After"]) > 0
    assert refused.data == {"detail": "the studio's database is busy (other writers hold it); try again in a moment"}
    response = answer("POST", "/api/pipelines/{id}/runs/", 503, [("Retry-After", refused["Retry-After"]),
                                                                 ("Content-Type", "application/json")],
                      json.dumps(refused.data).encode())
    assert not mismatches(case_of("POST", "/api/pipelines/{id}/runs/", body={}, media_type="application/json"),
                          response)
    assert exception_handler(OperationalError("no such table: x"), {}).status_code == 500
