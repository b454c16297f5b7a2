"""The API fuzzed from its own OpenAPI schema (schemathesis): no 5xx, every answer as the schema says.

Every operation gets positive and negative (schema-violating) cases, sent in-process to the
WSGI application as an authenticated user, against a database that holds a pipeline with
two versions, runs, checkpoints and a savepoint of that user (and a pipeline of someone
else), so that generated ids hit real objects as well as missing and foreign ones.
Derandomized, so a failure reproduces.
"""
import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from studio.models import Checkpoint, Pipeline, PipelineVersion, Run, SavepointRequest
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline, token_client

schemathesis.checks.load_all_checks()
ALL_CHECKS = schemathesis.checks.CHECKS.get_all()  # --checks all


@schemathesis.check
def positive_data_acceptance_past_the_definition_schema(ctx, response, case):
    """Schema-valid data is accepted, except that a pipeline definition has rules no JSON Schema states
    (a source, edges between its own nodes, valid expressions, each node type's params): breaking
    them is the documented 400 that lists every problem in ``errors``."""
    if response.status_code == 400 and "errors" in response.json():
        return None
    return schemathesis.checks.positive_data_acceptance(ctx, response, case)


CHECKS = [positive_data_acceptance_past_the_definition_schema if check is schemathesis.checks.positive_data_acceptance
          else check for check in ALL_CHECKS]


@pytest.fixture
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


@pytest.fixture
def seeded(db, user, other_user, wsgi_keeps_the_test_connection):
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
    return token_client(user).token_key


# generating the schema reads no database, so it can load while the module is collected
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, database=None,
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
