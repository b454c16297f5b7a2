"""Revocation reaches open WebSockets: losing access in any way closes the sockets it concerns (4403).

Each test opens sockets, takes access away the way an owner, an admin or the user would,
and waits for the close (the timeout only bounds a hang; the latency is measured by
``make bench-studio``). Sockets that keep their access stay open and keep streaming.
"""
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group

from studio.asgi import application
from studio.models import ApiToken, Pipeline, PipelineShare, PipelineVersion, Run, Team, TeamMembership, TeamShare
from studio.realtime.consumers import ACCESS_REVOKED
from studio.runs.events import set_status
from tests.support import simple_pipeline, token_client, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)
CLOSE_TIMEOUT_S = 10


@pytest.fixture
def shared_run(user, other_user):
    """alice's run, on a pipeline shared with bob's group."""
    pipeline = Pipeline.objects.create(name="shared", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    group = Group.objects.create(name="readers")
    other_user.groups.add(group)
    share = PipelineShare.objects.create(pipeline=pipeline, group=group)
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get())
    set_status(run.id, "CREATED")
    return {"run": run, "pipeline": pipeline, "group": group, "share": share}


async def open_socket(path: str, headers) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=10)
    assert connected, code
    return communicator


async def close_code(communicator: WebsocketCommunicator) -> int | None:
    """Skip events until the server closes the socket; its close code."""
    while True:
        output = await communicator.receive_output(timeout=CLOSE_TIMEOUT_S)
        if output["type"] == "websocket.close":
            return output.get("code")


async def still_streaming(communicator: WebsocketCommunicator, run_id: int, status: str) -> bool:
    """The socket is open and receives the next live event."""
    await database_sync_to_async(set_status)(run_id, status)
    while True:
        event = json.loads(await communicator.receive_from(timeout=CLOSE_TIMEOUT_S))
        if event["type"] == "status" and event["data"]["status"] == status:
            await communicator.disconnect()
            return True


def bob_and_alice_sockets(shared_run, bob_headers, alice_token):
    """bob follows the run and the pipeline; alice (the owner) follows the run."""
    run_id, pipeline_id = shared_run["run"].id, shared_run["pipeline"].id

    async def sockets():
        return (await open_socket(f"/ws/runs/{run_id}/", bob_headers),
                await open_socket(f"/ws/pipelines/{pipeline_id}/", bob_headers),
                await open_socket(f"/ws/runs/{run_id}/", ws_headers(alice_token)))
    return sockets


def revoke_and_watch(shared_run, bob_headers, alice_token, revoke) -> tuple[int, int, bool]:
    run_id = shared_run["run"].id

    async def scenario():
        bob_run, bob_pipeline, alice_run = await bob_and_alice_sockets(shared_run, bob_headers, alice_token)()
        await database_sync_to_async(revoke)()
        codes = (await close_code(bob_run), await close_code(bob_pipeline))
        return (*codes, await still_streaming(alice_run, run_id, "SCHEDULING"))

    return async_to_sync(scenario)()


def test_deleting_the_share_closes_the_sockets_it_opened(shared_run, user, other_user):
    bob_token = ApiToken.issue(other_user, "ws")[1]
    owner = token_client(user)

    def unshare():
        share = shared_run["share"]
        response = owner.delete(f"/api/pipelines/{shared_run['pipeline'].id}/shares/{share.id}")
        assert response.status_code == 204

    assert revoke_and_watch(shared_run, ws_headers(bob_token), owner.token_key, unshare) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_deleting_a_token_closes_its_sockets_and_no_other(shared_run, user, other_user):
    bob_token, bob_other_token = ApiToken.issue(other_user, "ws")[1], ApiToken.issue(other_user, "other")[1]
    alice_token = ApiToken.issue(user, "ws")[1]
    bob = token_client(other_user)
    run_id = shared_run["run"].id

    async def scenario():
        revoked = await open_socket(f"/ws/runs/{run_id}/", ws_headers(bob_token))
        kept = await open_socket(f"/ws/runs/{run_id}/", ws_headers(bob_other_token))
        token_id = await database_sync_to_async(
            lambda: ApiToken.objects.get(key_hash=ApiToken.hash_key(bob_token)).pk)()
        response = await database_sync_to_async(bob.delete)(f"/api/auth/tokens/{token_id}")
        assert response.status_code == 204
        return await close_code(revoked), await still_streaming(kept, run_id, "RUNNING")

    assert async_to_sync(scenario)() == (ACCESS_REVOKED, True)
    assert alice_token  # alice's access was never in question


def test_leaving_the_group_closes_the_sockets(shared_run, user, other_user):
    bob_token, alice_token = ApiToken.issue(other_user, "ws")[1], ApiToken.issue(user, "ws")[1]
    assert revoke_and_watch(shared_run, ws_headers(bob_token), alice_token,
                            lambda: shared_run["group"].user_set.remove(other_user)) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_clearing_the_group_closes_the_sockets(shared_run, user, other_user):
    bob_token, alice_token = ApiToken.issue(other_user, "ws")[1], ApiToken.issue(user, "ws")[1]
    assert revoke_and_watch(shared_run, ws_headers(bob_token), alice_token,
                            lambda: shared_run["group"].user_set.clear()) == (ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_deactivating_the_user_closes_the_sockets(shared_run, user, other_user):
    bob_token, alice_token = ApiToken.issue(other_user, "ws")[1], ApiToken.issue(user, "ws")[1]

    def deactivate():
        other_user.is_active = False
        other_user.save()

    assert revoke_and_watch(shared_run, ws_headers(bob_token), alice_token, deactivate) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_logging_out_closes_the_sessions_sockets(shared_run, user, other_user, client):
    client.force_login(other_user)
    cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
    alice_token = ApiToken.issue(user, "ws")[1]
    assert revoke_and_watch(shared_run, [*ws_headers(), cookie], alice_token, client.logout) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_deleting_the_pipeline_closes_every_socket_on_it(shared_run, user, other_user):
    bob_token = ApiToken.issue(other_user, "ws")[1]
    owner = token_client(user)
    run_id, pipeline_id = shared_run["run"].id, shared_run["pipeline"].id
    set_status(run_id, "CANCELED")  # a pipeline with a run still going cannot be deleted

    async def scenario():
        sockets = [await open_socket(f"/ws/runs/{run_id}/", ws_headers(bob_token)),
                   await open_socket(f"/ws/runs/{run_id}/", ws_headers(owner.token_key)),
                   await open_socket(f"/ws/pipelines/{pipeline_id}/", ws_headers(owner.token_key))]
        response = await database_sync_to_async(owner.delete)(f"/api/pipelines/{pipeline_id}")
        assert response.status_code == 204
        return [await close_code(socket) for socket in sockets]

    assert async_to_sync(scenario)() == [ACCESS_REVOKED] * 3



def bobs_four_sockets(shared_run, bob_id: int, bob_token: str):
    """bob follows alice's run, her pipeline, his notifications, and a tap of his on her run."""
    from studio.taps.models import Tap

    run_id, pipeline_id = shared_run["run"].id, shared_run["pipeline"].id
    set_status(run_id, "RUNNING")
    tap = Tap.objects.create(tap_id=Tap.new_tap_id(), run_id=run_id, edge="e1", created_by_id=bob_id)

    async def sockets():
        return [await open_socket(path, ws_headers(bob_token)) for path in (
            f"/ws/runs/{run_id}/", f"/ws/pipelines/{pipeline_id}/", "/ws/notifications/", tap.websocket_path)]
    return sockets


def revoke_around_the_orm(shared_run, user, other_user, settings, revoke, kept: tuple[int, ...] = ()):
    """bob's four sockets and alice's run socket are open when ``revoke`` takes bob's access away in a way
    no signal announces; the sockets' periodic check (its period driven down here) must close bob's. The
    close code of each of bob's sockets (None for those in ``kept``, once they answered a ping after the
    others closed), and whether alice's still streams."""
    settings.SOCKET_ACCESS_RECHECK_S = 0.05
    bob_token, alice_token = ApiToken.issue(other_user, "ws")[1], ApiToken.issue(user, "ws")[1]
    run_id = shared_run["run"].id
    open_bobs = bobs_four_sockets(shared_run, other_user.pk, bob_token)

    async def scenario():
        bobs = await open_bobs()
        alices = await open_socket(f"/ws/runs/{run_id}/", ws_headers(alice_token))
        await database_sync_to_async(revoke)()
        codes = [None if index in kept else await close_code(socket) for index, socket in enumerate(bobs)]
        for index in kept:
            codes[index] = await close_code_or_pong(bobs[index])
        return codes, await still_streaming(alices, run_id, "FAILING")

    return async_to_sync(scenario)()


async def close_code_or_pong(communicator: WebsocketCommunicator) -> int | None:
    """Ping: None when the socket answers (it is open), its close code when it closes instead."""
    await communicator.send_json_to({"type": "ping"})
    while True:
        output = await communicator.receive_output(timeout=CLOSE_TIMEOUT_S)
        if output["type"] == "websocket.close":
            return output.get("code")
        if json.loads(output.get("text") or "{}").get("type") == "pong":
            await communicator.disconnect()
            return None


def test_a_share_deleted_by_raw_sql_closes_the_sockets_it_opened(shared_run, user, other_user, settings):
    from django.db import connection

    def delete_share():
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {PipelineShare._meta.db_table} WHERE id = %s", [shared_run["share"].id])

    # bob's notifications are his own: losing a pipeline takes none of them away
    assert revoke_around_the_orm(shared_run, user, other_user, settings, delete_share, kept=(2,)) == (
        [ACCESS_REVOKED, ACCESS_REVOKED, None, ACCESS_REVOKED], True)


def test_a_user_deactivated_by_a_bulk_update_loses_every_socket_and_his_tap(shared_run, user, other_user, settings):
    from django.contrib.auth import get_user_model

    from studio.taps.models import Tap

    def deactivate():
        get_user_model().objects.filter(pk=other_user.pk).update(is_active=False)

    assert revoke_around_the_orm(shared_run, user, other_user, settings, deactivate) == ([ACCESS_REVOKED] * 4, True)
    assert Tap.objects.get().state == "closed"  # the driver was told to stop sampling


@pytest.fixture
def team_run(user, other_user, settings):
    """A run of team "core"'s pipeline: alice is its admin, bob its operator. The sockets' periodic check is
    out of the way: what closes them is the revocation signal."""
    settings.SOCKET_ACCESS_RECHECK_S = 3600
    team = Team.objects.create(name="core")
    TeamMembership.objects.create(team=team, user=user, role="admin")
    bobs = TeamMembership.objects.create(team=team, user=other_user, role="operator")
    pipeline = Pipeline.objects.create(name="team's", owner=other_user, team=team)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get())
    set_status(run.id, "CREATED")
    return {"run": run, "pipeline": pipeline, "team": team, "membership": bobs}


def test_removing_a_team_member_closes_their_sockets_and_no_other(team_run, user, other_user):
    bob_token, admin = ApiToken.issue(other_user, "ws")[1], token_client(user)

    def remove_bob():
        team, membership = team_run["team"], team_run["membership"]
        assert admin.delete(f"/api/teams/{team.pk}/members/{membership.pk}").status_code == 204

    assert revoke_and_watch(team_run, ws_headers(bob_token), admin.token_key, remove_bob) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_taking_the_pipeline_out_of_the_team_closes_the_members_sockets(team_run, user, other_user):
    bob_token, admin = ApiToken.issue(other_user, "ws")[1], token_client(user)

    def take_out():
        moved = admin.post(f"/api/pipelines/{team_run['pipeline'].pk}/team", {"team": None}, format="json")
        assert moved.status_code == 200

    assert revoke_and_watch(team_run, ws_headers(bob_token), admin.token_key, take_out) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_deleting_a_team_share_closes_the_sockets_it_opened(team_run, user, other_user, django_user_model):
    """carol sees alice's own pipeline through a share with team "core"; the share goes, her sockets close."""
    carol = django_user_model.objects.create_user("carol", password="carol-password")
    TeamMembership.objects.create(team=team_run["team"], user=carol, role="viewer")
    pipeline = Pipeline.objects.create(name="alice's", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get())
    set_status(run.id, "CREATED")
    share = TeamShare.objects.create(pipeline=pipeline, team=team_run["team"], role="viewer")
    owner = token_client(user)

    def unshare():
        assert owner.delete(f"/api/pipelines/{pipeline.pk}/team-shares/{share.pk}").status_code == 204

    shared = {"run": run, "pipeline": pipeline}
    assert revoke_and_watch(shared, ws_headers(ApiToken.issue(carol, "ws")[1]), owner.token_key, unshare) == (
        ACCESS_REVOKED, ACCESS_REVOKED, True)


def test_a_member_of_another_team_and_a_removed_member_are_refused_at_connect(team_run, user, other_user,
                                                                              django_user_model):
    """dave, the admin of another team, never subscribes to team "core"'s run or pipeline (4404, as for a run that
    does not exist); bob, removed from "core", is refused the same way when his page reconnects; carol, a viewer, is
    let in."""
    from studio.realtime.consumers import NOT_FOUND

    dave = django_user_model.objects.create_user("dave", password="dave-password")
    TeamMembership.objects.create(team=Team.objects.create(name="fraud"), user=dave, role="admin")
    carol = django_user_model.objects.create_user("carol", password="carol-password")
    TeamMembership.objects.create(team=team_run["team"], user=carol, role="viewer")
    run_id, pipeline_id = team_run["run"].id, team_run["pipeline"].id
    paths = (f"/ws/runs/{run_id}/", f"/ws/pipelines/{pipeline_id}/")

    async def refused(headers) -> list:
        codes = []
        for path in paths:
            communicator = WebsocketCommunicator(application, path, headers=headers)
            connected, code = await communicator.connect(timeout=10)
            codes.append(code if not connected else "open")
            await communicator.disconnect()
        return codes

    dave_headers = ws_headers(ApiToken.issue(dave, "ws")[1])
    bob_headers = ws_headers(ApiToken.issue(other_user, "ws")[1])
    assert async_to_sync(refused)(ws_headers(ApiToken.issue(carol, "ws")[1])) == ["open", "open"]
    assert async_to_sync(refused)(dave_headers) == [NOT_FOUND, NOT_FOUND]
    assert async_to_sync(refused)(bob_headers) == ["open", "open"]
    team_run["membership"].delete()
    assert async_to_sync(refused)(bob_headers) == [NOT_FOUND, NOT_FOUND]
