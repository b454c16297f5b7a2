"""What a team owns besides pipelines, tried by hostile second users: storage locations granted to a team,
a team's secrets and a team's environments.

Alice is the admin of team "payments", which owns the pipeline; Bob is its operator, Carol its viewer, and
Dave is a member of another team only. A team's grant, secret and environment are its editors' and up (never a
viewer's, never another team's member's), a member who is removed loses them at once (the next validation, start
or driver), only the team's admins change them, and a secret's value is never answered.
"""
from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from studio.environments.models import Environment, EnvironmentRun, Secret
from studio.environments.values import SECRETS
from studio.models import Checkpoint, LocationGrant, Pipeline, Run, TeamMembership
from studio.run_values import ValuesRefused, driver_definition
from studio.secret_box import unseal
from tests.support import signed_snapshot, simple_pipeline, token_client

pytestmark = pytest.mark.django_db

SECRET_VALUE = "team-S3cr3t/+value&x"
FORMS = {SECRET_VALUE, quote(SECRET_VALUE, safe=""), base64.b64encode(SECRET_VALUE.encode()).decode().rstrip("=")}


@pytest.fixture(autouse=True)
def no_launch(monkeypatch):
    """Runs are created, not launched; a driver is run in this process where a test needs one."""
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)


@pytest.fixture
def people(user, other_user, django_user_model):
    """Alice (admin of payments), Bob (its operator), Carol (its viewer), Dave (admin of another team), each with a
    client; and payments' pipeline."""
    carol = django_user_model.objects.create_user("carol", password="carol-password")
    dave = django_user_model.objects.create_user("dave", password="dave-password")
    clients = {"alice": token_client(user), "bob": token_client(other_user), "carol": token_client(carol),
               "dave": token_client(dave)}
    alice = clients["alice"]
    team = alice.post("/api/teams", {"name": "payments"}, format="json").json()
    for username, role in (("bob", "operator"), ("carol", "viewer")):
        added = alice.post(f"/api/teams/{team['id']}/members", {"username": username, "role": role}, format="json")
        assert added.status_code == 201, added.content
    other = clients["dave"].post("/api/teams", {"name": "fraud"}, format="json").json()
    return {**clients, "team": team, "other_team": other, "users": {"alice": user, "bob": other_user,
                                                                      "carol": carol, "dave": dave}}


def team_pipeline(people, definition: dict) -> dict:
    alice = people["alice"]
    created = alice.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert created.status_code == 201, created.content
    moved = alice.post(f"/api/pipelines/{created.json()['id']}/team", {"team": people["team"]["id"]}, format="json")
    assert moved.status_code == 200, moved.content
    return created.json()


def remove(people, username: str) -> None:
    membership = TeamMembership.objects.get(team_id=people["team"]["id"], user__username=username)
    assert people["alice"].delete(f"/api/teams/{people['team']['id']}/members/{membership.pk}").status_code == 204


def leaks(*texts: str) -> list[str]:
    return [form for text in texts for form in FORMS if form in text]


# --- storage locations granted to a team ------------------------------------------------------------


@pytest.fixture
def lake(people, tmp_path, settings, django_user_model):
    """A directory with data, granted over REST by an administrator to team payments."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    (tmp_path / "lake").mkdir()
    (tmp_path / "lake" / "in.jsonl").write_text('{"n": 1}\n')
    root = token_client(django_user_model.objects.create_user("root", password="pw", is_staff=True))
    location = root.post("/api/locations", {"name": "lake", "kind": "path", "prefix": str(tmp_path / "lake")},
                         format="json")
    assert location.status_code == 201, location.content
    granted = root.post(f"/api/locations/{location.json()['id']}/grants", {"team": "payments"}, format="json")
    assert granted.status_code == 201, granted.content
    assert granted.json()["team"] == "payments" and granted.json()["user"] is None
    return {"dir": tmp_path / "lake", "id": location.json()["id"], "root": root, "grant": granted.json()["id"]}


def reading(path) -> dict:
    definition = simple_pipeline(name="reads")
    definition["nodes"][0] = {"id": "src", "type": "source.file", "params": {"path": str(path)}}
    definition["edges"][0]["from"] = "src"
    return definition


def refused(api, definition: dict) -> list[str]:
    answer = api.post("/api/pipelines/validate", {"definition": definition}, format="json")
    assert answer.status_code == 200, answer.content
    return [error["message"] for error in answer.json()["errors"] if error["field"] == "params.path"]


def test_a_team_grant_is_its_editors_and_up_and_no_one_elses(people, lake):
    reads = reading(lake["dir"] / "in.jsonl")
    assert refused(people["alice"], reads) == [] and refused(people["bob"], reads) == []
    for outsider in ("carol", "dave"):  # a viewer of the team, a member of another team
        assert refused(people[outsider], reads) != [], outsider
    listed = {name: "lake" in [row["name"] for row in people[name].get("/api/locations").json()]
              for name in ("alice", "bob", "carol", "dave")}
    assert listed == {"alice": True, "bob": True, "carol": False, "dave": False}
    assert people["bob"].get(f"/api/locations/{lake['id']}").json()["can_write"] is True
    assert people["dave"].get(f"/api/locations/{lake['id']}").status_code == 404
    # every member sees what the team was granted; another team's member gets no answer about it
    seen = people["carol"].get(f"/api/teams/{people['team']['id']}/locations")
    assert seen.status_code == 200 and [(row["name"], row["can_write"]) for row in seen.json()] == [("lake", True)]
    assert people["dave"].get(f"/api/teams/{people['team']['id']}/locations").status_code == 404
    # a member who becomes a viewer, or leaves, loses it at once
    bob = TeamMembership.objects.get(team_id=people["team"]["id"], user__username="bob")
    lowered = people["alice"].put(f"/api/teams/{people['team']['id']}/members/{bob.pk}", {"role": "viewer"},
                                  format="json")
    assert lowered.status_code == 200 and refused(people["bob"], reads) != []
    people["alice"].put(f"/api/teams/{people['team']['id']}/members/{bob.pk}", {"role": "editor"}, format="json")
    assert refused(people["bob"], reads) == []
    remove(people, "bob")
    assert refused(people["bob"], reads) != []
    assert "lake" not in [row["name"] for row in people["bob"].get("/api/locations").json()]
    # the administrator revokes the team's grant: gone for every member
    assert lake["root"].delete(f"/api/locations/{lake['id']}/grants/{lake['grant']}").status_code == 204
    assert refused(people["alice"], reads) != []


def test_a_read_only_team_grant_refuses_sinks(people, lake):
    LocationGrant.objects.filter(pk=lake["grant"]).update(can_write=False)
    writes = simple_pipeline(name="writes")
    writes["nodes"][-1] = {"id": "out", "type": "sink.file", "params": {"path": str(lake["dir"] / "out")}}
    answer = people["bob"].post("/api/pipelines/validate", {"definition": writes}, format="json").json()
    assert [error["message"] for error in answer["errors"]] == [
        f"'{lake['dir']}/out': location 'lake' is granted to you for reading only"]
    assert people["bob"].get(f"/api/locations/{lake['id']}").json()["can_write"] is False


def test_the_driver_asks_for_the_team_grant_again_when_the_run_starts(people, lake):
    """Bob saved and started a run while he was a member; he is removed before its driver starts: it fails naming
    the node, and reads nothing."""
    from studio.runs.driver import main

    definition = reading(lake["dir"] / "in.jsonl")
    definition["nodes"][-1] = {"id": "out", "type": "sink.file", "params": {"path": str(lake["dir"] / "out")}}
    pipeline = team_pipeline(people, definition)
    started = people["bob"].post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert started.status_code == 201, started.content
    remove(people, "bob")
    run = Run.objects.get(pk=started.json()["id"])
    Run.objects.filter(pk=run.pk).update(status="SCHEDULING")
    assert main([str(run.pk)]) == 0
    run.refresh_from_db()
    assert run.status == "FAILED", run.failure_cause
    assert "node 'src' params.path" in run.failure_cause and "node 'out' params.path" in run.failure_cause
    assert not (lake["dir"] / "out").exists()


def test_a_grant_names_exactly_one_of_user_group_or_team_and_only_staff_grant(people, lake):
    grants = f"/api/locations/{lake['id']}/grants"
    both = lake["root"].post(grants, {"team": "payments", "user": "bob"}, format="json")
    assert both.status_code == 400 and "exactly one of user, group or team" in both.content.decode()
    unknown = lake["root"].post(grants, {"team": "no-such-team"}, format="json")
    assert unknown.status_code == 400 and list(unknown.json()["fields"]) == ["team"], unknown.content
    assert people["alice"].post(grants, {"team": "payments"}, format="json").status_code == 403  # a team admin
    listed = lake["root"].get(grants).json()
    assert [(row["team"], row["user"], row["group"]) for row in listed] == [("payments", None, None)]


# --- a team's secrets ---------------------------------------------------------------------------------


@pytest.fixture
def team_secret(people) -> dict:
    made = people["alice"].post("/api/secrets", {"name": "db", "value": SECRET_VALUE, "team": people["team"]["id"]},
                                format="json")
    assert made.status_code == 201, made.content
    return made.json()


def test_only_a_teams_admins_keep_and_change_its_secrets_and_nobody_reads_one(people, team_secret):
    team_id, secret_id = people["team"]["id"], team_secret["id"]
    assert (team_secret["team"], team_secret["team_name"], team_secret["can_change"]) == (team_id, "payments", True)
    row = Secret.objects.get(pk=secret_id)
    assert SECRET_VALUE not in row.sealed and unseal(row.sealed, SECRETS) == SECRET_VALUE  # sealed at rest
    answers = []
    # an operator of the team sees its name, and may neither replace nor delete it, nor make one for the team
    bob = people["bob"]
    listed = bob.get("/api/secrets")
    assert [(row["name"], row["team_name"], row["can_change"]) for row in listed.json()] == [("db", "payments", False)]
    answers += [listed.content.decode(), bob.get(f"/api/secrets/{secret_id}").content.decode()]
    assert bob.patch(f"/api/secrets/{secret_id}", {"value": "mine now"}, format="json").status_code == 403
    assert bob.put(f"/api/secrets/{secret_id}", {"name": "db", "value": "x"}, format="json").status_code == 403
    assert bob.delete(f"/api/secrets/{secret_id}").status_code == 403
    assert bob.post("/api/secrets", {"name": "other", "value": "v", "team": team_id},
                    format="json").status_code == 403
    # another team's member: no answer about it, and no secret for a team that is not theirs
    dave = people["dave"]
    assert dave.get("/api/secrets").json() == []
    for call in (dave.get, dave.delete):
        assert call(f"/api/secrets/{secret_id}").status_code == 404
    assert dave.patch(f"/api/secrets/{secret_id}", {"value": "x"}, format="json").status_code == 404
    foreign = dave.post("/api/secrets", {"name": "db", "value": "v", "team": team_id}, format="json")
    assert foreign.status_code == 400 and [e["field"] for e in foreign.json()["errors"]] == ["team"]
    # the team's name is taken in the team; the admin replaces it; its team never changes
    again = people["alice"].post("/api/secrets", {"name": "db", "value": "v", "team": team_id}, format="json")
    assert again.status_code == 400 and "the team has a secret named 'db'" in again.content.decode()
    moved = people["alice"].patch(f"/api/secrets/{secret_id}", {"team": None}, format="json")
    assert moved.status_code == 400 and [e["field"] for e in moved.json()["errors"]] == ["team"]
    replaced = people["alice"].patch(f"/api/secrets/{secret_id}", {"value": SECRET_VALUE + "2"}, format="json")
    assert replaced.status_code == 200
    answers += [replaced.content.decode(), again.content.decode(), moved.content.decode()]
    assert leaks(*answers) == []
    assert Secret.objects.get(pk=secret_id).owner.username == "alice"  # who made it; the team owns it
    remove(people, "bob")
    assert bob.get("/api/secrets").json() == [] and bob.get(f"/api/secrets/{secret_id}").status_code == 404


def test_a_teams_secret_fills_in_its_pipelines_for_its_editors_and_up_only(people, team_secret):
    uses = simple_pipeline(expression="x if '${secret:db}' != '' else 0", name="uses-db")
    pipeline = team_pipeline(people, uses)
    started = people["bob"].post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert started.status_code == 201, started.content
    assert leaks(started.content.decode()) == []
    run = Run.objects.get(pk=started.json()["id"])
    filled, values = driver_definition(run)
    assert SECRET_VALUE in json.dumps(filled) and values == [SECRET_VALUE]
    # the team's secret wins over a member's own of the same name, on the team's pipeline
    assert people["bob"].post("/api/secrets", {"name": "db", "value": "bobs-own"}, format="json").status_code == 201
    assert driver_definition(run)[1] == [SECRET_VALUE]
    # a viewer's run (as if it had been started) does not get it
    as_carol = Run.objects.create(pipeline=run.pipeline, version=run.version, created_by=people["users"]["carol"])
    with pytest.raises(ValuesRefused, match="no secret of that name is yours or the pipeline's team's"):
        driver_definition(as_carol)
    # nor does a pipeline outside the team, a member's own or another team's member's
    for name in ("bob", "dave"):
        own = people[name].post("/api/pipelines", {"name": f"own-{name}", "definition": uses}, format="json").json()
        answer = people[name].post(f"/api/pipelines/{own['id']}/runs", {}, format="json")
        if name == "bob":  # his own secret of that name is what his own pipeline gets
            assert answer.status_code == 201
            assert driver_definition(Run.objects.get(pk=answer.json()["id"]))[1] == ["bobs-own"]
        else:
            assert answer.status_code == 400 and "unknown secret 'db'" in answer.content.decode()
    # a removed member's run that had not started yet does not get it either (his own of that name, at most)
    remove(people, "bob")
    assert driver_definition(run)[1] == ["bobs-own"]
    Secret.objects.filter(owner__username="bob", team__isnull=True).delete()
    with pytest.raises(ValuesRefused, match="unknown secret 'db'"):
        driver_definition(run)


# --- a team's environments -----------------------------------------------------------------------------


@pytest.fixture
def team_prod(people) -> dict:
    made = people["alice"].post("/api/environments", {"name": "prod", "position": 1, "team": people["team"]["id"],
                                                      "parameters": {"factor": 7}}, format="json")
    assert made.status_code == 201, made.content
    return made.json()


def scaled(name: str = "scaled") -> dict:
    return simple_pipeline(expression="x * ${param:factor}", name=name)


def test_a_teams_environment_is_used_by_its_members_with_its_pipelines(people, team_prod):
    env_id = team_prod["id"]
    assert (team_prod["team_name"], team_prod["mine"], team_prod["can_change"]) == ("payments", False, True)
    pipeline = team_pipeline(people, scaled())
    runs = f"/api/pipelines/{pipeline['id']}/runs"
    started = people["bob"].post(runs, {"environment": "prod"}, format="json")
    assert started.status_code == 201, started.content
    bound = EnvironmentRun.objects.get(run_id=started.json()["id"])
    assert (bound.environment_id, bound.parameters) == (env_id, {"factor": 7})
    # the operator sees it, with its runs, and may not change or delete it
    seen = people["bob"].get(f"/api/environments/{env_id}")
    assert seen.status_code == 200 and seen.json()["can_change"] is False
    assert [row["run"] for row in people["bob"].get(f"/api/environments/{env_id}/runs").json()] == [bound.run_id]
    assert people["bob"].patch(f"/api/environments/{env_id}", {"parameters": {"factor": 1}},
                               format="json").status_code == 403
    assert people["bob"].delete(f"/api/environments/{env_id}").status_code == 403
    # the viewer sees it but may not start a run (the pipeline's run permission)
    assert people["carol"].get(f"/api/environments/{env_id}").status_code == 200
    assert people["carol"].post(runs, {"environment": "prod"}, format="json").status_code == 403
    # another team's member: no answer about it; their own pipeline in "prod" finds no environment of theirs
    dave = people["dave"]
    assert dave.get(f"/api/environments/{env_id}").status_code == 404
    assert dave.patch(f"/api/environments/{env_id}", {"parameters": {}}, format="json").status_code == 404
    assert all(row["id"] != env_id for row in dave.get("/api/environments").json())
    own = dave.post("/api/pipelines", {"name": "daves", "definition": scaled("daves")}, format="json").json()
    assert dave.post(f"/api/pipelines/{own['id']}/runs", {"environment": "prod"}, format="json").status_code == 404
    # a member's own pipeline is no pipeline of the team's: the team's environment is not for it
    bobs = people["bob"].post("/api/pipelines", {"name": "bobs", "definition": scaled("bobs")}, format="json").json()
    assert people["bob"].post(f"/api/pipelines/{bobs['id']}/runs", {"environment": "prod"},
                              format="json").status_code == 404
    # the editor's picker: the environments one may use, for a pipeline when it names one
    def usable(name: str, pipeline_id: int | None = None):
        query = "" if pipeline_id is None else f"&pipeline={pipeline_id}"
        answer = people[name].get(f"/api/environments?usable=true{query}")
        return [row["id"] for row in answer.json()] if answer.status_code == 200 else answer.status_code

    assert usable("bob") == [env_id] and usable("bob", pipeline["id"]) == [env_id]
    assert usable("bob", bobs["id"]) == [] and usable("carol") == [] and usable("carol", pipeline["id"]) == []
    assert usable("dave") == [] and usable("dave", pipeline["id"]) == 400
    assert people["bob"].get("/api/environments?usable=true&pipeline=x").status_code == 400
    alone = people["bob"].get("/api/environments?pipeline=null")  # without usable it would narrow nothing
    assert alone.status_code == 400 and alone.json()["errors"][0]["field"] == "pipeline", alone.json()
    # the admin changes it; a removed member neither sees nor uses it
    assert people["alice"].patch(f"/api/environments/{env_id}", {"parameters": {"factor": 8}},
                                 format="json").status_code == 200
    remove(people, "bob")
    assert people["bob"].get(f"/api/environments/{env_id}").status_code == 404
    assert people["bob"].post(runs, {"environment": "prod"}, format="json").status_code == 404


def test_a_member_restores_a_run_of_the_teams_pipeline_into_the_teams_environment(people, team_prod, tmp_path):
    """Restoring another member's run goes on in its environment when it is the team's; a personal one stays its
    owner's (a 404 for anyone else)."""
    pipeline = team_pipeline(people, scaled())
    runs = f"/api/pipelines/{pipeline['id']}/runs"
    first = people["alice"].post(runs, {"environment": "prod"}, format="json")
    assert first.status_code == 201, first.content
    run = Run.objects.get(pk=first.json()["id"])
    location = signed_snapshot(tmp_path / "sp-3", run.pipeline, run=run)
    savepoint = Checkpoint.objects.create(run=run, checkpoint_id=3, kind="savepoint", status="COMPLETED",
                                          trigger_timestamp=1, external_path=location)
    restored = people["bob"].post(runs, {"restore_from": {"pk": savepoint.pk}}, format="json")
    assert restored.status_code == 201, restored.content
    bound = EnvironmentRun.objects.get(run_id=restored.json()["id"])
    assert (bound.environment_id, bound.parameters["factor"]) == (team_prod["id"], 7)
    # alice's personal "dev" is hers alone: bob restoring a run of it is refused
    assert people["alice"].post("/api/environments", {"name": "dev", "parameters": {"factor": 2}},
                                format="json").status_code == 201
    in_dev = Run.objects.get(pk=people["alice"].post(runs, {"environment": "dev"}, format="json").json()["id"])
    location = signed_snapshot(tmp_path / "sp-4", run.pipeline, run=in_dev)
    savepoint = Checkpoint.objects.create(run=in_dev, checkpoint_id=4, kind="savepoint", status="COMPLETED",
                                          trigger_timestamp=1, external_path=location)
    assert people["bob"].post(runs, {"restore_from": {"pk": savepoint.pk}}, format="json").status_code == 404


def test_promotions_along_a_teams_environments_are_its_members(people, team_prod):
    team_id = people["team"]["id"]
    dev = people["alice"].post("/api/environments", {"name": "dev", "position": 0, "team": team_id,
                                                     "parameters": {"factor": 2}}, format="json").json()
    people["alice"].patch(f"/api/environments/{team_prod['id']}", {"requires_approval": True}, format="json")
    pipeline = team_pipeline(people, scaled())
    into = {"pipeline": pipeline["id"], "version": 1}
    applied = people["bob"].post("/api/promotions", {**into, "environment": dev["id"]}, format="json")
    assert applied.status_code == 201 and applied.json()["status"] == "APPLIED", applied.content
    pending = people["bob"].post("/api/promotions", {**into, "environment": team_prod["id"]}, format="json")
    assert pending.status_code == 201 and pending.json()["status"] == "PENDING", pending.content
    assert pending.json()["source"] == "dev"  # the team's chain, not the maker's
    promotion = pending.json()["id"]
    assert people["carol"].get(f"/api/promotions/{promotion}").status_code == 200  # a member sees it
    assert people["dave"].get(f"/api/promotions/{promotion}").status_code == 404
    assert people["dave"].post("/api/promotions", {**into, "environment": dev["id"]}, format="json").status_code == 404
    assert people["alice"].post(f"/api/promotions/{promotion}/approve", {}, format="json").json()["status"] == "APPLIED"


def test_a_team_owning_environments_is_not_deleted_and_names_are_per_team(people, team_prod):
    alice, team_id = people["alice"], people["team"]["id"]
    taken = alice.post("/api/environments", {"name": "prod", "team": team_id}, format="json")
    assert taken.status_code == 400 and "the team has an environment named 'prod'" in taken.content.decode()
    mine = alice.post("/api/environments", {"name": "prod"}, format="json")  # a personal one of the same name
    assert mine.status_code == 201 and mine.json()["mine"] is True
    assert people["bob"].post("/api/environments", {"name": "x", "team": team_id}, format="json").status_code == 403
    foreign = people["dave"].post("/api/environments", {"name": "x", "team": team_id}, format="json")
    assert foreign.status_code == 400 and [e["field"] for e in foreign.json()["errors"]] == ["team"]
    deleted = alice.delete(f"/api/teams/{team_id}")
    assert deleted.status_code == 409 and "environments" in deleted.content.decode()
    assert Environment.objects.filter(team_id=team_id).count() == 1
    assert Pipeline.objects.filter(team_id=team_id).count() == 0  # the environment alone holds it


# --- a queued run's owner, checked again when it is launched ---------------------------------------------------


def queued_as(people, username: str, pipeline: dict, **body) -> Run:
    started = people[username].post(f"/api/pipelines/{pipeline['id']}/runs", body, format="json")
    assert started.status_code == 201, started.content
    run = Run.objects.get(pk=started.json()["id"])
    assert run.status == "CREATED"  # queued: no launch reached it yet (no_launch)
    return run


def test_a_removed_members_queued_run_fails_at_launch_by_a_worker_or_the_session_driver(people, team_prod,
                                                                                       team_secret):
    """Bob starts two runs of the team's pipeline in the team's environment with the team's secret, and is removed
    before either is launched: a Celery worker's launch and the session driver's each fail his run, naming why,
    and start nothing; Alice's run, queued beside them, starts."""
    from studio.runs.tasks import claim, launch_run
    from tests.studio.test_session_mode import session_driver_with

    pipeline = team_pipeline(people, simple_pipeline(expression="x * ${param:factor} if '${secret:db}' else 0",
                                                     name="uses-all"))
    by_worker, by_session = (queued_as(people, "bob", pipeline, environment="prod") for _ in range(2))
    alices = queued_as(people, "alice", pipeline, environment="prod")
    remove(people, "bob")

    launch_run.apply(args=[by_worker.id])  # the worker's launch: claimed, refused, no driver
    Run.objects.filter(pk=by_session.id).update(driver_token="handed-over")  # as send_to_session hands it over
    assert session_driver_with(4).launch(by_session.id, "handed-over") is False
    for run in (by_worker, by_session):
        run.refresh_from_db()
        assert (run.status, run.driver_pid, run.started_at) == ("FAILED", None, None)
        assert run.failure_cause == ("not started: its owner's access was checked again at launch: bob may no longer "
                                     f"run pipeline {pipeline['id']} ('uses-all')")
        shown = people["alice"].get(f"/api/runs/{run.id}").json()  # the run page's answer
        assert (shown["status"], shown["failure_cause"]) == ("FAILED", run.failure_cause)
        assert shown["status_history"][-1] == {"status": "FAILED", "ts": shown["status_history"][-1]["ts"],
                                               "cause": run.failure_cause}
    assert claim(alices.id) is True
    assert Run.objects.get(pk=alices.id).status == "SCHEDULING"


def test_a_queued_run_whose_owner_may_still_run_it_fails_at_launch_without_the_teams_values_and_grant(
        people, lake, team_prod, team_secret):
    """Bob may run the team's pipeline through a group share too; removed from the team he keeps the pipeline but
    no longer the team's environment, secret or location: his queued run fails naming each."""
    from django.contrib.auth.models import Group

    from studio.models import PipelineShare
    from studio.runs.tasks import claim

    definition = reading(lake["dir"] / "in.jsonl")
    definition["nodes"][1]["params"]["expression"] = "x * ${param:factor} if '${secret:db}' else 0"
    pipeline = team_pipeline(people, definition)
    group = Group.objects.create(name="on-call")
    group.user_set.add(people["users"]["bob"])
    PipelineShare.objects.create(pipeline_id=pipeline["id"], group=group, can_run=True)
    run = queued_as(people, "bob", pipeline, environment="prod")
    remove(people, "bob")

    assert claim(run.id) is False
    run.refresh_from_db()
    assert run.status == "FAILED"
    assert run.failure_cause.startswith(
        "not started: its owner's access was checked again at launch: environment: environment 'prod' is no longer "
        "one its owner may use with this pipeline; node 'double' params.expression: unknown secret 'db': no secret "
        f"of that name is its owner's or the pipeline's team's; node 'src' params.path: '{lake['dir'] / 'in.jsonl'}' "
        "is outside the locations granted to you"), run.failure_cause


def test_a_removed_members_run_taken_back_after_its_driver_died_fails_instead_of_going_on(people, team_prod,
                                                                                          team_secret):
    """Bob's run was running when its (session) driver died; he is removed from the team before a driver takes it
    back: it would get the team's secret and environment anew, so it fails naming why and goes on nowhere."""
    from studio.runs.driver import run_driver
    from studio.runs.tasks import claim

    pipeline = team_pipeline(people, simple_pipeline(expression="x * ${param:factor} if '${secret:db}' else 0",
                                                     name="uses-all"))
    run = queued_as(people, "bob", pipeline, environment="prod")
    assert claim(run.id) is True
    Run.objects.filter(pk=run.id).update(status="RUNNING", driver_token="the-session's")
    remove(people, "bob")

    assert run_driver(run.id, "the-session's", resume_cause="the session driver stopped answering") == 0
    run.refresh_from_db()
    assert (run.status, run.checkpoint_dir) == ("FAILED", "")
    assert run.failure_cause == ("not resumed: its owner's access was checked again when its driver took it back: "
                                 f"bob may no longer run pipeline {pipeline['id']} ('uses-all')")
