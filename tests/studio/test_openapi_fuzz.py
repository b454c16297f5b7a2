"""The API fuzzed from its own OpenAPI schema (schemathesis): no 5xx, every answer as the schema says.

A second pass sends every body-taking operation bodies holding one hostile value (a lone
surrogate, NaN, an infinity) where a string or number goes: a 400, never a 5xx.

Every operation gets positive and negative (schema-violating) cases, sent in-process to the
WSGI application as an authenticated user, against a database that holds a pipeline with
two versions, runs, checkpoints and a savepoint of that user (and a pipeline of someone
else), so that generated ids hit real objects as well as missing and foreign ones.
Derandomized, so a failure reproduces.

What it costs (CI runs the suite serially): schemathesis' coverage phase sends every boundary
and type violation the schema has, ~6,600 cases, deterministic whatever ``max_examples`` says;
the fuzzing phase adds ``max_examples`` random ones per operation (10: the same ten every run).
The rows are written once for the module, not per test (``seeded``).
"""
import json

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from studio.models import Checkpoint, Pipeline, PipelineVersion, Run, SavepointRequest
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline, token_client

schemathesis.checks.load_all_checks()
ALL_CHECKS = schemathesis.checks.CHECKS.get_all()  # --checks all


@schemathesis.check
def positive_data_acceptance_past_the_definition_schema(ctx, response, case):
    """Schema-valid data is accepted, except that a pipeline definition has rules no JSON Schema states
    (a source, edges between its own nodes, valid expressions, each node type's params): breaking
    them is the documented 400 that lists every problem in ``errors``. Nor does a JSON Schema say that text
    holds no NUL character: a string with one is the 400 naming its field, on every operation."""
    if response.status_code == 400 and "errors" in response.json():
        return None
    if response.status_code == 400 and only_null_characters_refused(response.json()):
        return None
    return schemathesis.checks.positive_data_acceptance(ctx, response, case)


NULL_CHARACTERS = "Null characters are not allowed."


def only_null_characters_refused(body) -> bool:
    """Whether every field a 400 names is refused for holding a NUL character, and nothing else."""
    messages = [message for problems in (body.get("fields") or {}).values() if isinstance(problems, list)
                for message in problems]
    return bool(messages) and all(message == NULL_CHARACTERS for message in messages)


CHECKS = [positive_data_acceptance_past_the_definition_schema if check is schemathesis.checks.positive_data_acceptance
          else check for check in ALL_CHECKS]


@pytest.fixture(scope="module")
def wsgi_keeps_the_test_connection():
    """Django's WSGI handler closes the database connection after each request (the test client
    does not); in a test that would end the test's transaction, so keep it open here too."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def seeded(django_db_setup, django_db_blocker, wsgi_keeps_the_test_connection):
    """The user's token, over rows written once for the module (two users, their pipelines, runs,
    checkpoints, a savepoint) in a transaction rolled back at its end; each test runs in a savepoint
    of it, so what one operation changes is gone before the next. Written per test, the rows and the
    users' password hashes took most of the fuzz's time (a second of CPU a test, ~225 tests)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        user, other_user = (get_user_model().objects.create_user(name, password=f"{name}-password")
                            for name in ("alice", "bob"))
        for owner, name in ((user, "mine"), (other_user, "theirs")):
            pipeline = Pipeline.objects.create(name=name, owner=owner)
            for number in (1, 2):
                PipelineVersion.objects.create(pipeline=pipeline, number=number,
                                               definition=simple_pipeline(expression=f"x * {number}"))
            for status in ("RUNNING", "FINISHED"):
                run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get(number=2))
                set_status(run.id, status)
                for checkpoint_id, kind in ((1, "checkpoint"), (2, "savepoint")):
                    record_event(run.id, "checkpoint", {"event": "triggered", "id": checkpoint_id, "kind": kind,
                                                        "trigger_timestamp": 1000})
                    record_event(run.id, "checkpoint", {
                        "event": "completed", "id": checkpoint_id, "kind": kind, "end_to_end_duration": 5,
                        "external_path": f"/nonexistent/run-{run.id}/chk-{checkpoint_id}",
                        "subtasks": [{"vertex": "v", "index": 0, "status": "completed", "ack_timestamp": 1005,
                                      "alignment_duration": 1.0, "state_size": 10}]})
                record_event(run.id, "metrics", {"vertices": {"v": {"records_out": 5.0}}, "collected": {"out": [1]}})
                if owner == user and status == "RUNNING":
                    SavepointRequest.objects.create(request_id="abc123", run=run, status="COMPLETED",
                                                    checkpoint=Checkpoint.objects.get(run=run, checkpoint_id=2))
        yield token_client(user).token_key
        transaction.set_rollback(True)


# generating the schema reads no database, so it can load while the module is collected
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())

DEFINITION = "#/components/schemas/Definition"
DEFINITION_COVERED_BY = {("PUT", "/api/pipelines/{id}/"): ("POST", "/api/pipelines/"),
                         ("POST", "/api/pipelines/import/"): ("POST", "/api/pipelines/"),
                         ("POST", "/api/preview/"): ("POST", "/api/plan/")}
"""Operations whose body's definition another operation's coverage reaches as well: the Definition component's
coverage cases (~1,000 an operation) are sent to that one only. PUT and import read it exactly as POST
/api/pipelines/ does (the same serializer field, ``studio.api.definitions.checked``); preview reads it with
the serializer field plan does, and its throttle (60 a minute) answered all but the first of its ~1,000 with
429 anyway. Every operation still gets the coverage of its other fields and its ten fuzzed bodies."""


def definition_fields(method: str, path: str) -> set[str]:
    """The properties of ``method path``'s JSON body that are the Definition component."""
    body = schema.raw_schema["paths"][path][method.lower()].get("requestBody", {})
    reference = body.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
    component = schema.raw_schema["components"]["schemas"].get(reference.rsplit("/", 1)[-1], {})
    return {name for name, field in component.get("properties", {}).items() if field.get("$ref") == DEFINITION}


@schema.hook
def filter_case(context, case):
    """Leave out the Definition's coverage cases where ``DEFINITION_COVERED_BY`` says they are sent already."""
    operation = (case.operation.method.upper(), case.operation.path)
    if operation not in DEFINITION_COVERED_BY or case._meta is None or case._meta.phase.name.value != "coverage":
        return True
    data = case._meta.phase.data
    return not any((data.location or "").startswith(f"/properties/{name}/")
                   or data.description.startswith(f"Object with valid '{name}' value")
                   for name in definition_fields(*operation))


def test_each_definition_is_covered_where_it_is_read_the_same_way():
    for operation, covered_by in DEFINITION_COVERED_BY.items():
        assert definition_fields(*operation) == definition_fields(*covered_by) == {"definition"}, operation


@pytest.mark.django_db
@pytest.mark.timeout(900)  # POST /api/pipelines/ and /api/plan/ send ~1,000 coverage cases each: 300 s at a load of 35
@schema.parametrize()
@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_its_schema_says(case, seeded):
    response = case.call_and_validate(headers={"Authorization": f"Token {seeded}"}, checks=CHECKS)
    assert response.status_code < 500  # call_and_validate also raises on any failed check


def test_the_schema_generates_without_warnings_and_documents_errors_everywhere():
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")  # raises on a warning
    paths = schema.raw_schema["paths"]
    public = {("/api/health/", "get"), ("/api/auth/login/", "post")}
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "delete"):
                continue
            codes = set(operation["responses"])
            assert any(code.startswith("2") for code in codes), (path, method)
            if (path, method) not in public:
                assert {"400", "401", "403"} <= codes, (path, method, codes)
            if "{" in path:
                assert "404" in codes, (path, method, codes)
    assert "tokenAuth" in schema.raw_schema["components"]["securitySchemes"]


POISONS = ["\ud800", "x\udfffy", "\udc80\ud83d", float("nan"), float("inf"), -float("inf")]
"""What a hostile script puts where a body's text or number goes: lone surrogates (valid JSON escapes, no
text) and the NaN and Infinity tokens Python's json writes (no JSON)."""


def poisoned(body, poison, where: int):
    """``body`` with its ``where``-th leaf (a string or a number, by index modulo their count) replaced by
    ``poison``; None when the body has no leaf to poison."""
    leaves = []

    def collect(value, replace):
        if isinstance(value, dict):
            for key in list(value):
                collect(value[key], lambda new, key=key, value=value: value.__setitem__(key, new))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                collect(item, lambda new, index=index, value=value: value.__setitem__(index, new))
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            leaves.append(replace)

    holder = [body]
    collect(body, lambda new: holder.__setitem__(0, new))
    if not leaves:
        return None
    leaves[where % len(leaves)](poison)
    return holder[0]


CHECKS_BUT_ACCEPTANCE = [check for check in ALL_CHECKS if check is not schemathesis.checks.positive_data_acceptance]


@pytest.mark.django_db
@schema.include(method=["POST", "PUT", "PATCH"]).parametrize()
@schema.given(poison=st.sampled_from(POISONS), where=st.integers(0, 10_000))
@settings(max_examples=15, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_every_body_holding_a_lone_surrogate_or_nan_is_a_400(case, seeded, poison, where):
    """The body stays schema-shaped otherwise: the poisoned value alone must make it a 400 with a detail (or
    a 404 for an object that is not there), never a 5xx, and the answer is what the schema says. An
    operation whose body has no string or number (or no body) is called as generated, and answers < 500."""
    headers = {"Authorization": f"Token {seeded}"}
    body = poisoned(case.body, poison, where) if isinstance(case.body, (dict, list)) else None
    if body is None:
        assert case.call_and_validate(headers=headers, checks=CHECKS).status_code < 500
        return
    raw = json.dumps(body).encode()  # as a script's json.dumps writes it: "\\ud800" escapes, NaN tokens
    response = case.call_and_validate(headers={**headers, "Content-Type": "application/json"}, data=raw,
                                      checks=CHECKS_BUT_ACCEPTANCE)
    if response.status_code in (403, 429):  # refused before the body was read: a staff-only API, a throttle
        return
    assert response.status_code in (400, 404), (response.status_code, response.text[:300])
    assert response.json()["detail"]
