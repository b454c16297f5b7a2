"""Teams and roles, as hostile users try them: what each role may do on a team's pipeline, what a
non-member sees (nothing), what a team share gives (no more than the member's own role), and that
taking a member out or down takes their access away at the next request.

alice is admin of team "core"; vera its viewer, eddie its editor, olga its operator; mallory is in
no team. The pipeline belongs to the team, made by eddie.
"""
from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import Group

from studio.access import PERMISSIONS, holds_role, pipeline_permissions, pipelines_with, role_on
from studio.models import Pipeline, PipelineShare, Run, Team, TeamMembership, TeamShare
from studio.runs.events import set_status
from studio.teams import ROLE_PERMISSIONS, ROLES, at_least, lesser, teams_of
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    return {name: django_user_model.objects.create_user(name, password=f"{name}-password")
            for name in ("alice", "vera", "eddie", "olga", "mallory")}


@pytest.fixture
def clients(people):
    return {name: token_client(user) for name, user in people.items()}


@pytest.fixture
def team(clients):
    created = clients["alice"].post("/api/teams", {"name": "core", "description": "the core team"}, format="json")
    assert created.status_code == 201, created.content
    team_id = created.json()["id"]
    for name, role in (("vera", "viewer"), ("eddie", "editor"), ("olga", "operator")):
        added = clients["alice"].post(f"/api/teams/{team_id}/members", {"username": name, "role": role}, format="json")
        assert added.status_code == 201, added.content
    return Team.objects.get(pk=team_id)


@pytest.fixture
def team_pipeline(clients, team):
    created = clients["eddie"].post("/api/pipelines", {"name": "orders", "definition": simple_pipeline(),
                                                       "team": team.pk}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["team"] == team.pk and created.json()["team_name"] == "core"
    return Pipeline.objects.get(pk=created.json()["id"])


@pytest.fixture
def running(clients, team_pipeline):
    started = clients["olga"].post(f"/api/pipelines/{team_pipeline.pk}/runs", {}, format="json")
    assert started.status_code == 201, started.content
    set_status(started.json()["id"], "RUNNING")
    return Run.objects.get(pk=started.json()["id"])


def member_id(team: Team, username: str) -> int:
    return TeamMembership.objects.get(team=team, user__username=username).pk


# --- what each role may do ------------------------------------------------------------------------------


def test_each_role_holds_what_the_one_before_holds_and_more():
    assert ROLES == ("viewer", "editor", "operator", "admin")
    for weaker, stronger in itertools.pairwise(ROLES):
        assert ROLE_PERMISSIONS[weaker] < ROLE_PERMISSIONS[stronger]
    assert ROLE_PERMISSIONS["admin"] == frozenset(PERMISSIONS)
    assert at_least("operator", "editor") and not at_least("viewer", "editor") and not at_least(None, "viewer")
    assert lesser("admin", "viewer") == "viewer"
    with pytest.raises(ValueError, match="unknown role 'approver'"):
        at_least("admin", "approver")


def test_the_members_see_what_their_role_gives(clients, team_pipeline, running):
    expected = {"alice": ["view", "edit", "run", "own"], "olga": ["view", "edit", "run"],
                "eddie": ["view", "edit"], "vera": ["view"]}
    for name, permissions in expected.items():
        answer = clients[name].get(f"/api/pipelines/{team_pipeline.pk}")
        assert answer.status_code == 200 and answer.json()["permissions"] == permissions, (name, answer.content)
        assert clients[name].get(f"/api/runs/{running.pk}").status_code == 200, name
        assert clients[name].get(f"/api/runs/{running.pk}/checkpoints").status_code == 200, name


def test_a_pipeline_tells_each_member_their_role_and_the_team_it_comes_from(clients, people, team, team_pipeline):
    """What the editor says to who may not save or run ("a viewer in team core")."""
    def role(name, pipeline=team_pipeline):
        answer = clients[name].get(f"/api/pipelines/{pipeline.pk}").json()
        return answer["role"], answer["role_team"]

    assert [role(name) for name in ("alice", "olga", "eddie", "vera")] == [
        ("admin", "core"), ("operator", "core"), ("editor", "core"), ("viewer", "core")]
    own = clients["mallory"].post("/api/pipelines", {"name": "mine", "definition": simple_pipeline()}, format="json")
    mine = Pipeline.objects.get(pk=own.json()["id"])
    assert role("mallory", mine) == ("admin", None)
    assert clients["vera"].get(f"/api/pipelines/{mine.pk}").status_code == 404

    other = Team.objects.create(name="ops")
    TeamMembership.objects.create(team=other, user=people["vera"], role="operator")
    TeamShare.objects.create(pipeline=mine, team=other, role="editor")  # capped by the share
    assert role("vera", mine) == ("editor", "ops")
    group = Group.objects.create(name="readers")
    people["eddie"].groups.add(group)
    PipelineShare.objects.create(pipeline=mine, group=group)
    assert role("eddie", mine) == (None, None)  # a group share gives no role


def test_a_viewer_cannot_edit_start_stop_cancel_savepoint_or_delete(clients, team_pipeline, running):
    vera = clients["vera"]
    pipeline = f"/api/pipelines/{team_pipeline.pk}"
    refused = [
        vera.put(pipeline, {"definition": simple_pipeline(count=5)}, format="json"),
        vera.post(f"{pipeline}/rollback", {"version": 1}, format="json"),
        vera.post(f"{pipeline}/runs", {}, format="json"),
        vera.post(f"/api/runs/{running.pk}/stop", {}, format="json"),
        vera.post(f"/api/runs/{running.pk}/cancel", {}, format="json"),
        vera.post(f"/api/runs/{running.pk}/savepoints", {}, format="json"),
        vera.post(f"{pipeline}/team-shares", {"team": "core", "role": "viewer"}, format="json"),
        vera.post(f"{pipeline}/team", {"team": None}, format="json"),
        vera.delete(pipeline),
    ]
    assert [answer.status_code for answer in refused] == [403] * len(refused), [a.content for a in refused]
    assert "you may not edit" in refused[0].json()["detail"] and "you may not run" in refused[2].json()["detail"]
    assert team_pipeline.versions.count() == 1 and Run.objects.filter(pipeline=team_pipeline).count() == 1
    assert Run.objects.get(pk=running.pk).status == "RUNNING"


def test_an_editor_saves_versions_but_does_not_run(clients, team_pipeline, running):
    eddie = clients["eddie"]
    saved = eddie.put(f"/api/pipelines/{team_pipeline.pk}", {"definition": simple_pipeline(count=5)}, format="json")
    assert saved.status_code == 200 and saved.json()["version"] == 2
    assert eddie.post(f"/api/pipelines/{team_pipeline.pk}/runs", {}, format="json").status_code == 403
    assert eddie.post(f"/api/runs/{running.pk}/cancel", {}, format="json").status_code == 403
    assert eddie.delete(f"/api/pipelines/{team_pipeline.pk}").status_code == 403


def test_an_operator_runs_and_cancels_but_only_an_admin_deletes(clients, team_pipeline, running):
    assert clients["olga"].post(f"/api/runs/{running.pk}/cancel", {}, format="json").status_code in (200, 202)
    assert clients["olga"].delete(f"/api/pipelines/{team_pipeline.pk}").status_code == 403
    set_status(running.pk, "CANCELED")
    assert clients["alice"].delete(f"/api/pipelines/{team_pipeline.pk}").status_code == 204


def test_the_creator_of_a_team_pipeline_holds_no_more_than_their_role(clients, people, team_pipeline):
    assert team_pipeline.owner == people["eddie"]
    assert pipeline_permissions(people["eddie"], team_pipeline) == ROLE_PERMISSIONS["editor"]
    assert clients["eddie"].delete(f"/api/pipelines/{team_pipeline.pk}").status_code == 403


# --- a non-member sees nothing ---------------------------------------------------------------------------


def test_a_non_member_sees_nothing_of_the_team(clients, team, team_pipeline, running):
    mallory = clients["mallory"]
    pipeline = f"/api/pipelines/{team_pipeline.pk}"
    hidden = [
        mallory.get(f"/api/teams/{team.pk}"), mallory.get(f"/api/teams/{team.pk}/members"),
        mallory.post(f"/api/teams/{team.pk}/members", {"username": "mallory", "role": "admin"}, format="json"),
        mallory.put(f"/api/teams/{team.pk}", {"name": "mine"}, format="json"),
        mallory.delete(f"/api/teams/{team.pk}/members/{member_id(team, 'alice')}"),
        mallory.delete(f"/api/teams/{team.pk}"),
        mallory.get(pipeline), mallory.get(f"{pipeline}/versions"), mallory.get(f"{pipeline}/runs"),
        mallory.post(f"{pipeline}/runs", {}, format="json"), mallory.get(f"{pipeline}/team-shares"),
        mallory.get(f"/api/runs/{running.pk}"), mallory.get(f"/api/runs/{running.pk}/checkpoints"),
        mallory.post(f"/api/runs/{running.pk}/cancel", {}, format="json"),
    ]
    assert [answer.status_code for answer in hidden] == [404] * len(hidden), [a.content for a in hidden]
    assert mallory.get("/api/teams").json() == []
    assert mallory.get("/api/pipelines").json() == [] and mallory.get("/api/runs").json()["results"] == []
    assert TeamMembership.objects.filter(user__username="mallory").count() == 0


def test_a_team_one_is_not_in_cannot_be_named_nor_told_apart_from_none(clients, team, team_pipeline):
    mallory = clients["mallory"]
    mine = mallory.post("/api/pipelines", {"name": "m", "definition": simple_pipeline()}, format="json").json()
    for team_id in (team.pk, team.pk + 1000):
        into = mallory.post("/api/pipelines", {"name": "x", "definition": simple_pipeline(), "team": team_id},
                            format="json")
        moved = mallory.post(f"/api/pipelines/{mine['id']}/team", {"team": team_id}, format="json")
        assert into.status_code == moved.status_code == 400, (into.content, moved.content)
        assert into.json()["detail"] == moved.json()["detail"] == f"team: no team {team_id} among your teams"
    shared = mallory.post(f"/api/pipelines/{mine['id']}/team-shares", {"team": "core"}, format="json")
    assert shared.status_code == 400 and shared.json()["detail"] == "team: no team named 'core' among your teams"
    assert Pipeline.objects.filter(team=team).count() == 1


def test_a_viewer_may_not_put_pipelines_into_the_team(clients, team):
    refused = clients["vera"].post("/api/pipelines", {"name": "v", "definition": simple_pipeline(),
                                                      "team": team.pk}, format="json")
    assert refused.status_code == 403 and "needs editor or more" in refused.json()["detail"]
    assert not Pipeline.objects.filter(name="v").exists()


# --- membership --------------------------------------------------------------------------------------------


def test_only_admins_manage_members_and_a_team_keeps_an_admin(clients, team):
    eddie, alice = clients["eddie"], clients["alice"]
    assert eddie.post(f"/api/teams/{team.pk}/members", {"username": "mallory"}, format="json").status_code == 403
    assert eddie.put(f"/api/teams/{team.pk}/members/{member_id(team, 'vera')}", {"role": "admin"},
                     format="json").status_code == 403
    assert eddie.put(f"/api/teams/{team.pk}", {"name": "eddies"}, format="json").status_code == 403
    listed = eddie.get(f"/api/teams/{team.pk}/members").json()
    assert {(m["username"], m["role"]) for m in listed} == {("alice", "admin"), ("vera", "viewer"),
                                                             ("eddie", "editor"), ("olga", "operator")}
    again = alice.post(f"/api/teams/{team.pk}/members", {"username": "vera", "role": "admin"}, format="json")
    assert again.status_code == 409 and "already a member" in again.json()["detail"]
    unknown = alice.post(f"/api/teams/{team.pk}/members", {"username": "nobody"}, format="json")
    assert unknown.status_code == 400 and "username" in unknown.json()["fields"]
    bad_role = alice.post(f"/api/teams/{team.pk}/members", {"username": "mallory", "role": "owner"}, format="json")
    assert bad_role.status_code == 400 and "role" in bad_role.json()["fields"]
    last = alice.delete(f"/api/teams/{team.pk}/members/{member_id(team, 'alice')}")
    assert last.status_code == 409 and "last admin" in last.json()["detail"]
    down = alice.put(f"/api/teams/{team.pk}/members/{member_id(team, 'alice')}", {"role": "viewer"}, format="json")
    assert down.status_code == 409
    assert eddie.delete(f"/api/teams/{team.pk}/members/{member_id(team, 'eddie')}").status_code == 204  # leaving
    assert eddie.get(f"/api/teams/{team.pk}").status_code == 404


def test_team_names_are_unique_and_a_team_with_pipelines_is_not_deleted(clients, team, team_pipeline):
    taken = clients["mallory"].post("/api/teams", {"name": "CORE"}, format="json")
    assert taken.status_code == 409 and "taken" in taken.json()["detail"]
    kept = clients["alice"].delete(f"/api/teams/{team.pk}")
    assert kept.status_code == 409 and f"[{team_pipeline.pk}]" in kept.json()["detail"]
    moved = clients["alice"].post(f"/api/pipelines/{team_pipeline.pk}/team", {"team": None}, format="json")
    assert moved.status_code == 200 and moved.json()["team"] is None and moved.json()["owner"] == "alice"
    assert clients["eddie"].get(f"/api/pipelines/{team_pipeline.pk}").status_code == 404  # no longer the team's
    assert clients["alice"].delete(f"/api/teams/{team.pk}").status_code == 204
    assert not TeamMembership.objects.filter(team_id=team.pk).exists()


def test_the_team_list_shows_ones_role(clients, team):
    assert [(t["name"], t["role"], t["members"]) for t in clients["olga"].get("/api/teams").json()] == [
        ("core", "operator", 4)]


# --- revocation at the next request ---------------------------------------------------------------------


def test_removing_a_member_takes_their_access_away_at_once(clients, team, team_pipeline, running):
    olga = clients["olga"]
    assert olga.get(f"/api/runs/{running.pk}").status_code == 200  # an answer a cache may keep
    removed = clients["alice"].delete(f"/api/teams/{team.pk}/members/{member_id(team, 'olga')}")
    assert removed.status_code == 204
    assert olga.get(f"/api/runs/{running.pk}").status_code == 404
    assert olga.get(f"/api/pipelines/{team_pipeline.pk}").status_code == 404
    assert olga.post(f"/api/runs/{running.pk}/cancel", {}, format="json").status_code == 404
    assert olga.get("/api/pipelines").json() == []


def test_a_lower_role_takes_the_permissions_away_at_once(clients, team, team_pipeline, running):
    olga = clients["olga"]
    assert clients["alice"].put(f"/api/teams/{team.pk}/members/{member_id(team, 'olga')}", {"role": "viewer"},
                                format="json").status_code == 200
    assert olga.post(f"/api/runs/{running.pk}/cancel", {}, format="json").status_code == 403
    assert olga.get(f"/api/pipelines/{team_pipeline.pk}").json()["permissions"] == ["view"]


# --- sharing with a team -------------------------------------------------------------------------------------


@pytest.fixture
def other_team(clients, people):
    """mallory's team "ops", where vera is operator and eddie viewer."""
    team_id = clients["mallory"].post("/api/teams", {"name": "ops"}, format="json").json()["id"]
    for name, role in (("vera", "operator"), ("eddie", "viewer")):
        clients["mallory"].post(f"/api/teams/{team_id}/members", {"username": name, "role": role}, format="json")
    return Team.objects.get(pk=team_id)


def test_a_team_share_gives_no_more_than_the_share_nor_the_members_own_role(clients, people, other_team):
    mine = clients["mallory"].post("/api/pipelines", {"name": "m", "definition": simple_pipeline()}, format="json")
    pipeline = Pipeline.objects.get(pk=mine.json()["id"])
    shared = clients["mallory"].post(f"/api/pipelines/{pipeline.pk}/team-shares", {"team": "ops", "role": "operator"},
                                     format="json")
    assert shared.status_code == 201 and shared.json()["team"] == "ops" and shared.json()["role"] == "operator"
    assert pipeline_permissions(people["vera"], pipeline) == ROLE_PERMISSIONS["operator"]
    assert pipeline_permissions(people["eddie"], pipeline) == ROLE_PERMISSIONS["viewer"]  # his role in ops
    assert clients["eddie"].post(f"/api/pipelines/{pipeline.pk}/runs", {}, format="json").status_code == 403
    assert pipeline_permissions(people["alice"], pipeline) == frozenset()
    TeamShare.objects.filter(pk=shared.json()["id"]).update(role="editor")
    assert pipeline_permissions(people["vera"], pipeline) == ROLE_PERMISSIONS["editor"]  # the share's cap
    again = clients["mallory"].post(f"/api/pipelines/{pipeline.pk}/team-shares", {"team": "ops"}, format="json")
    assert again.status_code == 409
    assert clients["vera"].delete(f"/api/pipelines/{pipeline.pk}/team-shares/{shared.json()['id']}").status_code == 403
    assert clients["mallory"].delete(f"/api/pipelines/{pipeline.pk}/team-shares/{shared.json()['id']}").status_code == 204
    assert clients["vera"].get(f"/api/pipelines/{pipeline.pk}").status_code == 404


def test_a_share_of_another_pipeline_with_the_team_gives_nothing_here(clients, people, other_team):
    one, two = (Pipeline.objects.create(name=name, owner=people["mallory"]) for name in ("one", "two"))
    TeamShare.objects.create(pipeline=one, team=other_team, role="operator")
    assert role_on(people["vera"], one) == "operator" and role_on(people["vera"], two) is None
    assert list(pipelines_with(people["vera"], "view")) == [one]


# --- one rule: the queryset and the single answer agree -------------------------------------------------------


def test_pipelines_with_says_what_pipeline_permissions_says_for_every_user_pipeline_and_permission(
        people, team, other_team, django_user_model):
    readers = Group.objects.create(name="readers")
    people["olga"].groups.add(readers)
    pipelines = [
        Pipeline.objects.create(name="alice's", owner=people["alice"]),
        Pipeline.objects.create(name="team's", owner=people["eddie"], team=team),
        Pipeline.objects.create(name="ops'", owner=people["mallory"], team=other_team),
        Pipeline.objects.create(name="shared", owner=people["mallory"]),
        Pipeline.objects.create(name="grouped", owner=people["vera"]),
        Pipeline.objects.create(name="orphan", owner=None),
    ]
    TeamShare.objects.create(pipeline=pipelines[3], team=team, role="operator")
    TeamShare.objects.create(pipeline=pipelines[1], team=other_team, role="editor")
    PipelineShare.objects.create(pipeline=pipelines[4], group=readers, can_run=True)
    admin = django_user_model.objects.create_superuser("root", password="root-password")
    inactive = django_user_model.objects.create_user("gone", password="gone-password", is_active=False)
    TeamMembership.objects.create(team=team, user=inactive, role="admin")
    for user in [*people.values(), admin, inactive]:
        for pipeline in pipelines:
            held = pipeline_permissions(user, pipeline)
            for permission in PERMISSIONS:
                listed = pipelines_with(user, permission).filter(pk=pipeline.pk).exists()
                assert listed == (permission in held), (user.username, pipeline.name, permission)
    assert pipeline_permissions(people["olga"], pipelines[3]) == ROLE_PERMISSIONS["operator"]
    assert pipeline_permissions(people["vera"], pipelines[1]) == ROLE_PERMISSIONS["editor"]  # ops' operator, capped
    assert pipeline_permissions(people["olga"], pipelines[4]) == {"view", "run"}


def test_roles_for_other_apps(people, team):
    """What an approval rule (environments) asks: the strongest role one holds on a pipeline."""
    pipeline = Pipeline.objects.create(name="p", owner=people["eddie"], team=team)
    solo = Pipeline.objects.create(name="solo", owner=people["mallory"])
    assert [role_on(people[name], pipeline) for name in ("alice", "olga", "eddie", "vera", "mallory")] == [
        "admin", "operator", "editor", "viewer", None]
    assert role_on(people["mallory"], solo) == "admin" and role_on(people["alice"], solo) is None
    assert holds_role(people["olga"], pipeline, "operator") and not holds_role(people["eddie"], pipeline, "operator")
    assert list(teams_of(people["olga"], "operator")) == [team] and not teams_of(people["eddie"], "operator").exists()
