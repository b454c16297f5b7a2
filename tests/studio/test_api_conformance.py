"""The OpenAPI schema is the contract: every operation it documents is called on real objects and its
answer, status and body, is checked against what the schema documents for that status.

Beside the fuzzing (``test_openapi_fuzz``, generated data against seeded rows), this is one story
through the API on real things: a pipeline with versions, a run on Spark through the Celery worker
with completed checkpoints, a savepoint, a rescale, a stop with a savepoint and a restore, the state
browser on its savepoints, a tap, a shadow run of the next version (its outputs, promoted to a run
restored from the production's savepoint), an alert rule with its notification, a schedule, a storage
location with a grant, a file uploaded into it and browsed, a connection profile to a Kafka cluster
(tested, shared, its topics browsed and sampled), tokens and shares, test cases and an exactly-once
proof on Spark, a pipeline kept in a Git repository (a conflict, resolved).
Each operation is called where it succeeds, then every operation again as a hostile second user
(404 for what is not theirs), with ids that do not exist (404) and without credentials (401);
a few conflicts (409) on the way. Every answer is validated by schemathesis' checks for status
code, content type, headers and body.

The operations are read from the schema, not listed here: an operation the story does not call
(a new endpoint) fails the test by name, so a new endpoint gets its call in ``story`` below; and
every status an answer has must be one its operation documents (the answers every operation may
get whatever its view, 503 and 413, are given for real in ``test_api_common_answers``).
The figures (operations, calls, mismatches, undocumented statuses) are printed and written to
``test-results/api-conformance.json``.
"""
from __future__ import annotations

import json
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from confluent_kafka import Producer

from studio.models import Checkpoint, Rescale, Run
from studio.shadows.models import ShadowRun
from tests.conftest import ROOT
from tests.kafka_server import KafkaMockCluster
from tests.studio.openapi_contract import documented_statuses, operations, schema
from tests.studio.openapi_contract import mismatches as problems_of
from tests.studio.test_live_run import RUN_START_TIMEOUT, status_of
from tests.support import simple_pipeline, token_client, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark, pytest.mark.timeout(1500)]

PUBLIC = {("POST", "/api/auth/login/"), ("GET", "/api/health/")}
MISSING_INT, MISSING_HEX = 987654321, "f" * 12
FIGURES = ROOT / "test-results" / "api-conformance.json"
NOT_YET_CALLED: set[tuple[str, str]] = set()
"""Operations the story does not call yet, each a debt the figures show (``listed_not_yet_called``): the test
fails for any other operation it does not call, and for a listed one that it calls or the schema no longer has."""

@dataclass
class Call:
    method: str
    path: str
    path_parameters: dict
    query: dict | None
    body: object
    status: int
    token: str | None = None
    media_type: str = "application/json"


@dataclass
class Contract:
    """Calls operations by their schema path and checks each answer against the schema."""

    token: str
    sent: int = 0
    calls: list[Call] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    undocumented: list[str] = field(default_factory=list)

    def __call__(self, method: str, path: str, status: int, *, query: dict | None = None, body=None,
                 token: str | None = "", media_type: str = "application/json", **path_parameters):
        """``method path`` (a schema path, ``{name}`` filled from ``path_parameters``) expecting ``status``;
        the answer's JSON (None when it has none). ``token=None`` sends no credentials; ``body`` is sent as
        ``media_type``."""
        call = Call(method, path, path_parameters, query, body, status, self.token if token == "" else token,
                    media_type)
        self.calls.append(call)
        return self.send(call, token=call.token, status=status)

    def send(self, call: Call, *, token: str | None, status: int | set[int], path_parameters: dict | None = None):
        """``call`` again (with other ``path_parameters``, or as someone else), expecting ``status`` (or one of
        them); the answer's JSON."""
        self.sent += 1
        operation = schema[call.path][call.method]
        case = operation.Case(path_parameters=path_parameters or call.path_parameters, query=call.query,
                              **({"body": call.body, "media_type": call.media_type} if call.body is not None else {}))
        headers = {"Authorization": f"Token {token}"} if token else {}
        response = case.call(headers=headers)
        where = f"{call.method} {case.formatted_path} -> {response.status_code}"
        self.mismatches += [f"{where}: {problem}" for problem in problems_of(case, response, headers)]
        if response.status_code not in documented_statuses(call.method, call.path):
            self.undocumented.append(f"{call.method} {call.path} -> {response.status_code}")
        if response.status_code not in ({status} if isinstance(status, int) else status):
            self.unexpected.append(f"{where}, expected {status}: {response.text[:300]}")
        try:
            return response.json()
        except ValueError:
            return None

    def peek(self, path: str, **path_parameters):
        """GET ``path`` expecting 200, its answer checked like every other but not one of the story's calls
        (what a wait asks again and again)."""
        return self.send(Call("GET", path, path_parameters, None, None, 200), token=self.token, status=200)

    def called(self) -> set[tuple[str, str]]:
        return {(call.method, call.path) for call in self.calls}


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", password="root-password", is_staff=True)


def story(api: Contract, staff_token: str, directory: str, kafka: KafkaMockCluster) -> None:
    """Every operation of the schema, called where it succeeds, in an order that makes its objects
    (``directory``: where the storage location points)."""
    # who am I, the catalog, tokens
    api("GET", "/api/health/", 200, token=None)
    api("POST", "/api/auth/login/", 200, body={"username": "alice", "password": "alice-password"}, token=None)
    api("GET", "/api/auth/me/", 200)
    api("GET", "/api/operators/", 200)
    token = api("POST", "/api/auth/tokens/", 201, body={"name": "conformance"})
    api("GET", "/api/auth/tokens/", 200)
    api("DELETE", "/api/auth/tokens/{id}/", 204, id=token["id"])

    # storage locations (staff writes), a grant
    location = api("POST", "/api/locations/", 201, body={"name": "conformance", "kind": "path",
                                                          "prefix": directory}, token=staff_token)
    api("PUT", "/api/locations/{id}/", 200, body={"name": "conformance", "kind": "path", "prefix": directory,
                                                  "description": "the run's savepoints"}, token=staff_token,
        id=location["id"])
    grant = api("POST", "/api/locations/{id}/grants/", 201, body={"user": "alice", "can_write": True},
                token=staff_token, id=location["id"])
    api("GET", "/api/locations/{id}/grants/", 200, token=staff_token, id=location["id"])
    api("GET", "/api/locations/", 200)
    api("GET", "/api/locations/{id}/", 200, id=location["id"])
    files_story(api, location["name"])
    connections_story(api, staff_token, kafka)

    # definitions without a pipeline
    definition = simple_pipeline(count=None, rate=200, interval_ms=300, name="conformance")
    api("POST", "/api/pipelines/validate/", 200, body={"definition": definition})
    api("POST", "/api/plan/", 200, body={"definition": definition})
    api("POST", "/api/preview/", 200, body={"definition": simple_pipeline(count=5), "limit": 5})
    api("POST", "/api/pipelines/diff/", 200, body={"from": definition, "to": simple_pipeline(expression="x + 1")})

    # a pipeline: versions, plan, export, shares; one imported and deleted
    pipeline = api("POST", "/api/pipelines/", 201, body={"name": "conformance", "definition": definition})
    pid = pipeline["id"]
    api("PUT", "/api/pipelines/{id}/", 200, id=pid, body={"name": "conformance", "message": "x + 2",
                                                           "definition": {**definition, "nodes": [
                                                               *definition["nodes"][:1],
                                                               {**definition["nodes"][1], "params": {"expression": "x + 2"}},
                                                               *definition["nodes"][2:]]}})
    api("POST", "/api/pipelines/{id}/rollback/", 200, id=pid, body={"version": 1, "message": "back"})
    api("POST", "/api/pipelines/{id}/isolation/", 200, id=pid, body={"isolated": True})
    api("POST", "/api/pipelines/{id}/isolation/", 400, id=pid, body={"isolated": "maybe"})
    api("POST", "/api/pipelines/{id}/isolation/", 200, id=pid, body={"isolated": False})
    api("GET", "/api/session/", 200)
    api("GET", "/api/pipelines/", 200)
    api("GET", "/api/pipelines/{id}/", 200, id=pid)
    api("GET", "/api/pipelines/{id}/versions/", 200, id=pid)
    api("GET", "/api/pipelines/{id}/versions/{number}/", 200, id=pid, number=2)
    api("GET", "/api/pipelines/{id}/diff/", 200, id=pid, query={"from": 1, "to": 2})
    api("GET", "/api/pipelines/{id}/export/", 200, id=pid, query={"version": 2})
    api("GET", "/api/pipelines/{id}/plan/", 200, id=pid)
    share = api("POST", "/api/pipelines/{id}/shares/", 201, id=pid, body={"group": "conformance-readers",
                                                                          "permissions": ["view"]})
    api("POST", "/api/pipelines/{id}/shares/", 409, id=pid, body={"group": "conformance-readers"})
    api("GET", "/api/pipelines/{id}/shares/", 200, id=pid)
    api("DELETE", "/api/pipelines/{id}/shares/{share_id}/", 204, id=pid, share_id=share["id"])
    api("GET", "/api/pipelines/{id}/file/", 200, id=pid, query={"version": 2})

    # a team: its members, the pipeline shared with it, then moved into it and out again
    team = api("POST", "/api/teams/", 201, body={"name": "conformance", "description": "the story's team"})
    api("PUT", "/api/teams/{id}/", 200, id=team["id"], body={"name": "conformance", "description": "renamed"})
    api("GET", "/api/teams/", 200)
    api("GET", "/api/teams/{id}/", 200, id=team["id"])
    member = api("POST", "/api/teams/{id}/members/", 201, id=team["id"], body={"username": "root", "role": "viewer"})
    api("GET", "/api/teams/{id}/members/", 200, id=team["id"])
    api("GET", "/api/teams/{id}/locations/", 200, id=team["id"])
    api("PUT", "/api/teams/{id}/members/{member_id}/", 200, id=team["id"], member_id=member["id"],
        body={"role": "operator"})
    api("DELETE", "/api/teams/{id}/members/{member_id}/", 204, id=team["id"], member_id=member["id"])
    team_share = api("POST", "/api/pipelines/{id}/team-shares/", 201, id=pid, body={"team": "conformance",
                                                                                     "role": "editor"})
    api("GET", "/api/pipelines/{id}/team-shares/", 200, id=pid)
    api("DELETE", "/api/pipelines/{id}/team-shares/{share_id}/", 204, id=pid, share_id=team_share["id"])
    api("POST", "/api/pipelines/{id}/team/", 200, id=pid, body={"team": team["id"]})
    api("POST", "/api/pipelines/{id}/team/", 200, id=pid, body={"team": None})
    api("DELETE", "/api/teams/{id}/", 204, id=team["id"])
    imported = api("POST", "/api/pipelines/import/", 201, body={"name": "imported", "definition": definition})
    api("DELETE", "/api/pipelines/{id}/", 204, id=imported["id"])

    # environments, a promotion approved by a second user (staff here, an operator of the pipeline's team), secrets
    approving = api("POST", "/api/teams/", 201, body={"name": "approving"})
    api("POST", "/api/teams/{id}/members/", 201, id=approving["id"], body={"username": "root", "role": "operator"})
    api("POST", "/api/pipelines/{id}/team/", 200, id=pid, body={"team": approving["id"]})
    dev = api("POST", "/api/environments/", 201, body={"name": "dev", "position": 0, "parameters": {"factor": 2}})
    prod = api("POST", "/api/environments/", 201, body={"name": "prod", "position": 1, "requires_approval": True,
                                                        "approval_role": "operator", "parameters": {"factor": 5}})
    api("GET", "/api/environments/", 200)
    api("GET", "/api/environments/{id}/", 200, id=dev["id"])
    api("PUT", "/api/environments/{id}/", 200, id=dev["id"], body={"name": "dev", "parameters": {"factor": 3}})
    api("PATCH", "/api/environments/{id}/", 200, id=dev["id"], body={"description": "where it starts"})
    promote = {"pipeline": pid, "version": 1}
    api("POST", "/api/promotions/", 201, body={**promote, "environment": dev["id"]})
    api("POST", "/api/promotions/preview/", 200, body={**promote, "environment": prod["id"]})
    asked = api("POST", "/api/promotions/", 201, body={**promote, "environment": prod["id"], "message": "ship"})
    api("POST", "/api/promotions/{id}/approve/", 200, id=asked["id"], body={"comment": "ok"}, token=staff_token)
    again = api("POST", "/api/promotions/", 201, body={**promote, "environment": prod["id"]})
    api("POST", "/api/promotions/{id}/reject/", 200, id=again["id"], body={}, token=staff_token)
    withdrawn = api("POST", "/api/promotions/", 201, body={**promote, "environment": prod["id"]})
    api("POST", "/api/promotions/{id}/withdraw/", 200, id=withdrawn["id"])
    api("GET", "/api/promotions/", 200, query={"status": "APPLIED"})
    api("GET", "/api/promotions/{id}/", 200, id=asked["id"])
    api("GET", "/api/environments/{id}/versions/", 200, id=prod["id"])
    api("GET", "/api/environments/{id}/runs/", 200, id=prod["id"])
    api("POST", "/api/pipelines/{id}/team/", 200, id=pid, body={"team": None})
    secret = api("POST", "/api/secrets/", 201, body={"name": "token", "value": "conformance-secret"})
    api("GET", "/api/secrets/", 200)
    api("GET", "/api/secrets/{id}/", 200, id=secret["id"])
    api("PUT", "/api/secrets/{id}/", 200, id=secret["id"], body={"name": "token", "value": "rotated"})
    api("PATCH", "/api/secrets/{id}/", 200, id=secret["id"], body={"description": "rotated"})
    api("DELETE", "/api/secrets/{id}/", 204, id=secret["id"])
    api("DELETE", "/api/environments/{id}/", 204, id=dev["id"])

    # test cases, on a pipeline of their own (proven on Spark at the end); a proof is refused for the main
    # pipeline, which has no test cases
    tested = api("POST", "/api/pipelines/", 201, body={"name": "tested", "definition": {
        **simple_pipeline(count=3), "tests": [{"name": "doubles", "inputs": {"gen": {"rows": [1, 2, 3]}},
                                               "assertions": [{"node": "double", "expect": "rows", "rows": [2, 4, 6]}]}]}})
    suite = api("POST", "/api/pipelines/{id}/test-runs/", 201, id=tested["id"], body={})
    api("GET", "/api/pipelines/{id}/test-runs/", 200, id=tested["id"], query={"version": 1})
    api("GET", "/api/pipelines/{id}/test-runs/{test_run_id}/", 200, id=tested["id"], test_run_id=suite["id"])
    api("GET", "/api/pipelines/{id}/test-runs/{test_run_id}/junit/", 200, id=tested["id"], test_run_id=suite["id"])
    api("POST", "/api/pipelines/{id}/proofs/", 400, id=pid, body={"kills": 1})  # no test case to prove it on

    # the tested pipeline kept in Git: a commit pushed outside and a save in the studio conflict, Git's side taken
    origin = Path(directory).parent / "pipelines.git"
    git(origin.parent, "init", "-q", "--bare", "-b", "main", str(origin))
    binding = api("POST", "/api/git-bindings/", 201, body={"pipeline": tested["id"], "repository": str(origin)})["binding"]
    work = origin.parent / "work"
    git(origin.parent, "clone", "-q", str(origin), str(work))
    [kept] = work.glob("*.pipeline.yaml")
    kept.write_text(kept.read_text().replace("x * 2", "x * 6"))
    git(work, "commit", "-qam", "six in git")
    git(work, "push", "-q", "origin", "main")
    api("PUT", "/api/pipelines/{id}/", 200, id=tested["id"], body={"definition": {
        **simple_pipeline(count=3, expression="x * 7"), "tests": []}, "message": "seven in the studio"})
    api("POST", "/api/git-bindings/{id}/pull/", 409, id=binding["id"])
    api("POST", "/api/git-bindings/{id}/resolve/", 200, id=binding["id"], body={"take": "git"})
    api("POST", "/api/git-bindings/{id}/pull/", 200, id=binding["id"])
    api("GET", "/api/git-bindings/{id}/compare/", 200, id=binding["id"])
    api("GET", "/api/git-bindings/", 200)
    api("GET", "/api/git-bindings/{id}/", 200, id=binding["id"])
    api("DELETE", "/api/git-bindings/{id}/", 204, id=binding["id"])

    # alerts and schedules on the pipeline
    rule = api("POST", "/api/alerts/rules/", 201, body={"pipeline": pid, "name": "failing", "kind": "run_failed"})
    api("PUT", "/api/alerts/rules/{id}/", 200, id=rule["id"], body={"pipeline": pid, "name": "failed",
                                                                    "kind": "run_failed"})
    api("PATCH", "/api/alerts/rules/{id}/", 200, id=rule["id"], body={"enabled": True})
    api("GET", "/api/alerts/rules/", 200, query={"pipeline": pid})
    api("GET", "/api/alerts/rules/{id}/", 200, id=rule["id"])
    [notification, *_] = api("POST", "/api/alerts/rules/{id}/test/", 202, id=rule["id"])
    api("GET", "/api/alerts/rules/{id}/deliveries/", 200, id=rule["id"])
    api("GET", "/api/alerts/notifications/", 200, query={"unread": "true"})
    api("GET", "/api/alerts/notifications/unread-count/", 200)
    api("POST", "/api/alerts/notifications/{id}/read/", 200, id=notification["id"])
    api("POST", "/api/alerts/notifications/read-all/", 200)
    schedule = api("POST", "/api/schedules/", 201, body={"pipeline": pid, "interval_s": 3600, "retain": 2,
                                                         "enabled": False})
    api("PUT", "/api/schedules/{id}/", 200, id=schedule["id"], body={"pipeline": pid, "interval_s": 600,
                                                                      "enabled": False})
    api("PATCH", "/api/schedules/{id}/", 200, id=schedule["id"], body={"retain": 3})
    api("GET", "/api/schedules/", 200)
    api("GET", "/api/schedules/{id}/", 200, id=schedule["id"])

    # a real run: checkpoints, metrics, a tap, a savepoint
    run = api("POST", "/api/pipelines/{id}/runs/", 201, id=pid, body={"version": 1})["id"]
    wait_until(lambda: status_of(run) == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
    api("DELETE", "/api/pipelines/{id}/", 409, id=pid)  # its run has not ended
    wait_until(lambda: api.peek("/api/runs/{id}/checkpoints/", id=run)["counts"]["completed"] >= 1,
               60, "a completed checkpoint")
    overview = api("GET", "/api/runs/{id}/checkpoints/", 200, id=run, query={"limit": 5})
    api("GET", "/api/runs/{id}/checkpoints/{checkpoint_id}/", 200, id=run,
        checkpoint_id=overview["latest"]["completed"]["id"])
    api("GET", "/api/runs/{id}/checkpoints/config/", 200, id=run)
    api("GET", "/api/runs/{id}/checkpoints/timeline/", 200, id=run)
    api("GET", "/api/runs/{id}/disk/", 200, id=run)
    api("GET", "/api/runs/{id}/environment/", 200, id=run)
    api("GET", "/metrics", 200)
    api("GET", "/api/runs/", 200, query={"pipeline": pid, "status": "RUNNING"})
    api("GET", "/api/pipelines/{id}/runs/", 200, id=pid)
    api("GET", "/api/runs/{id}/", 200, id=run)
    api("GET", "/api/runs/{id}/events/", 200, id=run, query={"after": 0})
    api("GET", "/api/runs/{id}/metrics/", 200, id=run)
    api("GET", "/api/runs/{id}/exceptions/", 200, id=run)
    api("GET", "/api/runs/{id}/state-compatibility/", 200, id=run, query={"version": 2})
    tap = api("POST", "/api/runs/{id}/taps/", 201, id=run, body={"edge": "e1", "records_per_second": 5})
    api("GET", "/api/runs/{id}/taps/", 200, id=run)
    api("GET", "/api/runs/{id}/taps/{tap_id}/", 200, id=run, tap_id=tap["tap_id"])
    api("DELETE", "/api/runs/{id}/taps/{tap_id}/", 204, id=run, tap_id=tap["tap_id"])
    # a shadow run of version 2 from the run's newest checkpoint, for 5 s on Spark beside the run (promoted below)
    shadow = api("POST", "/api/runs/{id}/shadows/", 201, id=run, body={"candidate_version": 2, "snapshot": "latest",
                                                                       "max_seconds": 5})
    api("GET", "/api/runs/{id}/shadows/", 200, id=run)
    api("GET", "/api/runs/{id}/shadows/{shadow_id}/", 200, id=run, shadow_id=shadow["id"])
    request_id = api("POST", "/api/runs/{id}/savepoints/", 202, id=run, body={})["request_id"]
    savepoint = wait_until(lambda: settled(api.peek("/api/runs/{id}/savepoints/{request_id}/", id=run,
                                                    request_id=request_id), "IN_PROGRESS"), 60, "the savepoint")
    assert savepoint["status"] == "COMPLETED", savepoint
    api("GET", "/api/runs/{id}/savepoints/{request_id}/", 200, id=run, request_id=request_id)
    api("GET", "/api/runs/{id}/savepoints/", 200, id=run)
    api("GET", "/api/runs/{id}/restore-points/", 200, id=run)

    # rescale (a stop with a savepoint and a new run from it), then stop that one with a savepoint
    rescale = api("POST", "/api/runs/{id}/rescale/", 202, id=run, body={"parallelism": 2})
    done = wait_until(lambda: Rescale.objects.filter(pk=rescale["id"], status__in=["COMPLETED", "ROLLED_BACK",
                                                                                   "FAILED"]).first(),
                      RUN_START_TIMEOUT, "the rescale")
    assert done.status == "COMPLETED", done.message
    api("GET", "/api/runs/{id}/rescales/", 200, id=run)

    # the state browser on the first run's two savepoints (the manual one and the rescale's stop)
    stop = Checkpoint.objects.filter(run_id=run, status="COMPLETED").exclude(kind="checkpoint").exclude(
        pk=savepoint["checkpoint_pk"]).get()
    at = {"id": run, "checkpoint_id": savepoint["checkpoint_id"]}
    state = api("GET", "/api/runs/{id}/checkpoints/{checkpoint_id}/state/", 200, **at)
    node = next(operator["node"] for operator in state["operators"] if operator["rows"])
    operator = "/api/runs/{id}/checkpoints/{checkpoint_id}/state/operators/{node}"
    rows = api("GET", f"{operator}/keys/", 200, **at, node=node, query={"limit": 5})["rows"]
    api("GET", f"{operator}/key/", 200, **at, node=node, query={"key": rows[0]["key_json"]})
    api("GET", f"{operator}/sizes/", 200, **at, node=node)
    api("GET", f"{operator}/diff/", 200, **at, node=node, query={"against": stop.checkpoint_id})
    api("GET", f"{operator}/export/", 200, **at, node=node, query={"as": "jsonl"})
    rescaled = done.new_run_id
    wait_until(lambda: status_of(rescaled) == "RUNNING", RUN_START_TIMEOUT, "the rescaled run to be RUNNING")
    api("POST", "/api/runs/{id}/stop/", 202, id=rescaled, body={"drain": False})
    wait_until(lambda: status_of(rescaled) in ("FINISHED", "FAILED", "CANCELED"), 120, "the stop")
    assert status_of(rescaled) == "FINISHED", Run.objects.get(pk=rescaled).failure_cause
    api("POST", "/api/runs/{id}/stop/", 409, id=rescaled, body={})

    # the shadow, ended: both sides' outputs; promoted to version 2 restored from the first run's savepoint
    ended = wait_until(lambda: ShadowRun.objects.filter(pk=shadow["id"], ended_at__isnull=False).first(),
                       RUN_START_TIMEOUT, "the shadow to end")
    assert ended.status == "COMPLETED", ended.failure
    at = {"id": run, "shadow_id": shadow["id"], "node": "out"}
    for side in ("production", "candidate"):
        api("GET", "/api/runs/{id}/shadows/{shadow_id}/outputs/{node}/", 200, **at, query={"side": side, "limit": 5})
    restored = api("POST", "/api/pipelines/{id}/runs/", 201, id=pid, body={
        "version": 2, "restore_from": {"pk": savepoint["checkpoint_pk"]}})["id"]
    api("DELETE", "/api/savepoints/{id}/", 409, id=savepoint["checkpoint_pk"])  # a run restores from it
    api("POST", "/api/runs/{id}/shadows/{shadow_id}/promote/", 200, id=run, shadow_id=shadow["id"],
        body={"run": restored})
    api("POST", "/api/runs/{id}/shadows/{shadow_id}/discard/", 200, id=run, shadow_id=shadow["id"])
    api("GET", "/api/runs/{id}/shadows/{shadow_id}/outputs/{node}/", 409, **at, query={"side": "production"})

    # cancel the promoted run; delete the savepoint it was restored from
    api("POST", "/api/runs/{id}/cancel/", 202, id=restored)
    wait_until(lambda: status_of(restored) in ("CANCELED", "FAILED", "FINISHED"), 120, "the cancel")
    api("POST", "/api/runs/{id}/cancel/", 409, id=restored)
    api("DELETE", "/api/savepoints/{id}/", 204, id=savepoint["checkpoint_pk"])

    # an exactly-once proof of the tested pipeline's version 1 on Spark, asked for once the runs ended (it kills
    # and restores a job of its own: beside the runs it would only slow their start on a busy machine)
    proof = api("POST", "/api/pipelines/{id}/proofs/", 202, id=tested["id"], body={"version": 1, "kills": 1, "seed": 7,
                                                                                   "rescale": False})
    api("POST", "/api/pipelines/{id}/proofs/", 409, id=tested["id"], body={"version": 1})  # one at a time
    api("GET", "/api/pipelines/{id}/proofs/", 200, id=tested["id"])
    at = {"id": tested["id"], "proof_id": proof["id"]}
    proven = wait_until(lambda: settled(api.peek("/api/pipelines/{id}/proofs/{proof_id}/", **at), "queued", "running"),
                        RUN_START_TIMEOUT * 4, "the proof to end", interval=1)
    assert proven["status"] == "passed", proven["message"]
    api("GET", "/api/pipelines/{id}/proofs/{proof_id}/", 200, **at)
    api("GET", "/api/pipelines/{id}/test-badges/", 200, id=tested["id"])

    # the end of the objects that are not the run's
    api("DELETE", "/api/schedules/{id}/", 204, id=schedule["id"])
    api("DELETE", "/api/alerts/rules/{id}/", 204, id=rule["id"])
    api("DELETE", "/api/locations/{id}/grants/{grant_id}/", 204, token=staff_token, id=location["id"],
        grant_id=grant["id"])
    api("DELETE", "/api/locations/{id}/", 204, token=staff_token, id=location["id"])
    api("DELETE", "/api/pipelines/{id}/", 204, id=pid)
    api("POST", "/api/auth/logout/", 204)


def files_story(api: Contract, location: str) -> None:
    """A file uploaded into a location, its directory listed, its first lines previewed."""
    numbers = "\n".join(str(number) for number in range(10)).encode() + b"\n"
    upload = {"location": location, "directory": "in", "name": "numbers.csv"}
    api("POST", "/api/uploads/", 201, query=upload, body=numbers, media_type="application/octet-stream")
    api("POST", "/api/uploads/", 409, query=upload, body=numbers, media_type="application/octet-stream")  # kept
    api("GET", "/api/files/", 200)
    api("GET", "/api/files/{location}/", 200, location=location, query={"path": "in"})
    api("GET", "/api/files/{location}/preview/", 200, location=location, query={"path": "in/numbers.csv"})


def connections_story(api: Contract, staff_token: str, cluster: KafkaMockCluster) -> None:
    """A Kafka cluster granted (as a location), a profile of it tested, changed and shared, its topics read."""
    kafka, topic = cluster.bootstrap, cluster.create_topic(f"orders-{uuid.uuid4().hex[:8]}")
    location = api("POST", "/api/locations/", 201, body={"name": "orders-cluster", "kind": "kafka",
                                                         "prefix": f"kafka://{kafka}"}, token=staff_token)
    api("POST", "/api/locations/{id}/grants/", 201, body={"user": "alice"}, token=staff_token, id=location["id"])
    api("POST", "/api/connections/test/", 200, body={"kind": "kafka", "address": kafka})
    profile = api("POST", "/api/connections/", 201, body={"name": "orders", "kind": "kafka", "address": kafka})
    at = {"id": profile["id"]}
    api("PUT", "/api/connections/{id}/", 200, **at, body={"name": "orders", "kind": "kafka", "address": kafka,
                                                          "description": "the shop's orders"})
    api("PATCH", "/api/connections/{id}/", 200, **at, body={"description": "orders, one topic per day"})
    api("GET", "/api/connections/", 200)
    api("GET", "/api/connections/{id}/", 200, **at)
    api("POST", "/api/connections/{id}/test/", 200, **at)
    share = api("POST", "/api/connections/{id}/shares/", 201, **at, body={"group": "conformance-readers"})
    api("POST", "/api/connections/{id}/shares/", 409, **at, body={"group": "conformance-readers"})
    api("GET", "/api/connections/{id}/shares/", 200, **at)
    api("DELETE", "/api/connections/{id}/shares/{share_id}/", 204, **at, share_id=share["id"])
    produce(kafka, topic, [{"order": number, "user": f"u{number % 3}"} for number in range(5)])
    api("GET", "/api/kafka/topics/", 200, query={"bootstrap_servers": "connection:orders"})
    api("GET", "/api/kafka/sample/", 200, query={"bootstrap_servers": "connection:orders", "topic": topic, "limit": 5})
    api("DELETE", "/api/connections/{id}/", 204, **at)
    api("DELETE", "/api/locations/{id}/", 204, token=staff_token, id=location["id"])


def produce(bootstrap: str, topic: str, values: list[dict]) -> None:
    """``values`` as JSON messages on ``topic``."""
    producer = Producer({"bootstrap.servers": bootstrap})
    for value in values:
        producer.produce(topic, json.dumps(value).encode())
    assert producer.flush(10) == 0


def settled(answer: dict, *pending: str) -> dict | None:
    """``answer``, once its status is none of ``pending`` (None before: ask again)."""
    return None if answer["status"] in pending else answer


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args], cwd=cwd, check=True,
                   capture_output=True)


def missing(parameters: dict) -> dict:
    return {name: MISSING_INT if isinstance(value, int) else MISSING_HEX for name, value in parameters.items()}


def test_every_operation_answers_as_the_schema_documents(celery_worker_process, user, other_user, staff,
                                                         granted_tmp_path, settings, tmp_path_factory, kafka_cluster):
    from django.contrib.auth.models import Group

    settings.STUDIO_GIT_MIRRORS = str(tmp_path_factory.mktemp("mirrors"))

    Group.objects.create(name="conformance-readers")
    api = Contract(token_client(user).token_key)
    story(api, token_client(staff).token_key, str(granted_tmp_path / "savepoints"), kafka_cluster)
    successes = list(api.calls)

    # the same calls as someone else, on ids that do not exist, and without credentials
    other = token_client(other_user).token_key
    for call in successes:
        if call.path_parameters and call.status < 400:
            api.send(call, token=other, status={403, 404})  # a location's writes are staff's: 403
            api.send(call, token=call.token, status=404, path_parameters=missing(call.path_parameters))
        if (call.method, call.path) not in PUBLIC:
            api.send(call, token=None, status=401)

    documented = operations()
    not_called = sorted(documented - api.called() - NOT_YET_CALLED)
    stale = sorted(NOT_YET_CALLED - (documented - api.called()))
    figures = {"operations": len(documented), "operations_called": len(documented & api.called()),
               "calls": api.sent, "mismatches": len(api.mismatches),
               "unexpected_statuses": len(api.unexpected), "undocumented_statuses": api.undocumented,
               "not_called": [" ".join(op) for op in not_called],
               "listed_not_yet_called": [" ".join(op) for op in sorted(NOT_YET_CALLED & documented)]}
    FIGURES.parent.mkdir(exist_ok=True)
    FIGURES.write_text(json.dumps(figures, indent=2) + "\n")
    print("api conformance:", json.dumps(figures))
    assert not stale, f"NOT_YET_CALLED lists operations that are called now or gone: remove them: {stale}"
    assert not not_called, (
        f"{len(not_called)} operation(s) of the schema are not called by this test: add each to story() "
        f"in {Path(__file__).name}: {not_called}")
    assert not api.undocumented, "statuses their operation does not document:\n" + "\n".join(api.undocumented)
    assert not api.mismatches, "answers the schema does not document:\n" + "\n".join(api.mismatches)
    assert not api.unexpected, "unexpected statuses:\n" + "\n".join(api.unexpected)
