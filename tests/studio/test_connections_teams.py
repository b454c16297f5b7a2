"""A team's connection profiles, as its members and a hostile outsider try them: viewers see one, editors and
operators use it (test it, name it in nodes), admins change, share and delete it, and who is not in the team
gets a 404 for it and nothing from naming it; a member taken out loses it at the next request.

alice is admin of team "core", vera its viewer, eddie its editor; mallory is in no team. Every one of them
is granted the (unreachable) Kafka address, so only the profile's ownership decides.
"""
from __future__ import annotations

import pytest

from studio.connections.models import ConnectionProfile
from studio.models import Team, TeamMembership
from tests.support import token_client

pytestmark = pytest.mark.django_db

ADDRESS = "127.0.0.1:9"


@pytest.fixture
def people(django_user_model, grant):
    users = {name: django_user_model.objects.create_user(name, password="pw")
             for name in ("alice", "vera", "eddie", "mallory")}
    for user in users.values():
        grant(user, f"kafka://{ADDRESS}", kind="kafka")
    return users


@pytest.fixture
def clients(people):
    return {name: token_client(user) for name, user in people.items()}


@pytest.fixture
def team(people):
    team = Team.objects.create(name="core")
    for name, role in (("alice", "admin"), ("vera", "viewer"), ("eddie", "editor")):
        TeamMembership.objects.create(team=team, user=people[name], role=role)
    return team


@pytest.fixture
def team_profile(clients, team):
    made = clients["alice"].post("/api/connections", {"kind": "kafka", "name": "events", "address": ADDRESS,
                                                      "team": team.pk}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["team"] == team.pk and made.json()["team_name"] == "core"
    assert made.json()["reference"] == "connection:team:core/events"
    return made.json()


def definition(reference: str) -> dict:
    return {"format": 1, "name": "from-kafka", "parallelism": 1,
            "nodes": [{"id": "in", "type": "source.kafka",
                       "params": {"bootstrap_servers": reference, "topics": ["t"], "bounded": True}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "in", "to": "out"}]}


def usable(client, reference: str = "connection:team:core/events") -> bool:
    checked = client.post("/api/pipelines/validate", {"definition": definition(reference)}, format="json").json()
    return checked["valid"]


def test_members_use_a_teams_profile_by_role_and_an_outsider_gets_nothing(clients, team_profile):
    path = f"/api/connections/{team_profile['id']}"
    seen = {name: [p["name"] for p in clients[name].get("/api/connections").json()] for name in clients}
    assert seen == {"alice": ["events"], "vera": ["events"], "eddie": ["events"], "mallory": []}

    # use: editors and admins name it in nodes and test it; a viewer sees it and is told why not
    assert usable(clients["alice"]) and usable(clients["eddie"]) and usable(clients["eddie"], "connection:events")
    assert not usable(clients["vera"]) and not usable(clients["mallory"])
    assert clients["eddie"].post(f"{path}/test").json()["stage"] != "grants"
    refused = clients["vera"].post(f"{path}/test")
    assert refused.status_code == 403 and "using it takes an editor" in refused.json()["detail"]
    topics = clients["vera"].get("/api/kafka/topics", {"bootstrap_servers": "connection:team:core/events"})
    assert topics.status_code == 403

    # change, share, delete: the team's admins only (its creator holds no more than their role)
    for name in ("vera", "eddie"):
        for method, suffix, body in [("patch", "", {"description": "mine now"}), ("delete", "", None),
                                     ("get", "/shares", None), ("post", "/shares", {"user": "mallory"})]:
            answer = getattr(clients[name], method)(f"{path}{suffix}", body, format="json")
            assert answer.status_code == 403 and "an admin of team core" in answer.json()["detail"], (name, method)
    assert [clients[name].get(path).json()["mine"] for name in ("alice", "vera", "eddie")] == [True, False, False]
    assert clients["alice"].patch(path, {"description": "the team's events"}, format="json").status_code == 200

    # an outsider: 404 for every path, nothing from naming it
    for method, suffix in [("get", ""), ("patch", ""), ("put", ""), ("delete", ""), ("post", "/test"),
                           ("get", "/shares"), ("post", "/shares")]:
        answer = getattr(clients["mallory"], method)(f"{path}{suffix}", {}, format="json")
        assert answer.status_code == 404, (method, suffix, answer.status_code)
    assert ConnectionProfile.objects.get(pk=team_profile["id"]).description == "the team's events"


def test_a_teams_profile_is_made_by_its_admins_and_a_removed_member_loses_it_at_once(clients, people, team,
                                                                                    team_profile):
    body = {"kind": "kafka", "name": "other", "address": ADDRESS, "team": team.pk}
    refused = clients["eddie"].post("/api/connections", body, format="json")
    assert refused.status_code == 403 and "only an admin of team" in refused.json()["detail"]
    outsider = clients["mallory"].post("/api/connections", body, format="json")
    assert outsider.status_code == 400 and "no team" in str(outsider.json())
    again = clients["alice"].post("/api/connections", {**body, "name": "events"}, format="json")
    assert again.status_code == 400 and "already" in str(again.json())
    moved = clients["alice"].patch(f"/api/connections/{team_profile['id']}", {"team": None}, format="json")
    assert moved.status_code == 400 and "team" in str(moved.json())

    TeamMembership.objects.filter(user=people["eddie"]).delete()
    assert clients["eddie"].get(f"/api/connections/{team_profile['id']}").status_code == 404
    assert not usable(clients["eddie"])
    TeamMembership.objects.filter(user=people["vera"]).update(role="editor")  # a viewer made an editor uses it
    assert usable(clients["vera"])
