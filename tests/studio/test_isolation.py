"""Two users, one hostile: every location parameter of every connector stays inside what was granted.

Alice is the attacker; Bob's directory holds data and committed output. For each parameter
the operator catalog marks with ``x-location`` (so a new connector is covered as soon as it
is in the catalog), every escape variant of its kind is tried in ``validate``, ``preview``
and ``run``; each must be refused with a 4xx naming the node and the field, and Bob's
files must be exactly as they were. Then: restore by path of Bob's snapshot, a sink target
another pipeline owns, grants revoked after saving (the run's driver checks again), a
symlink swapped in after saving, and the administrators' REST endpoint.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from engine.api import OPERATOR_CATALOG, operator_spec
from studio.location_policy import KINDS, location_fields
from studio.models import Checkpoint, LocationGrant, Pipeline, Run, SinkClaim
from tests.support import signed_snapshot, simple_pipeline, token_client

pytestmark = pytest.mark.django_db

SECRET = "bob-secret-7f3a"
ALLOWED_HTTP = "http://allowed.internal"
ALLOWED_REDIS = "redis://allowed-redis.internal:6379/0"
ALLOWED_POSTGRES = "postgresql://allowed-pg.internal:5432/app"
ALLOWED_KAFKA = "kafka://broker-1.internal:9092,broker-2.internal:9092"
LOCATION_PARAMETERS = [(spec["type"], name, kind) for spec in OPERATOR_CATALOG for name, kind in location_fields(spec)]


@pytest.fixture
def places(tmp_path, settings, user, other_user, grant):
    """Alice's and Bob's granted directories (Bob's with data and output), the workspaces, and grants of one
    HTTP origin, one Redis database and one PostgreSQL database to Alice."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    (bob / "data").mkdir(parents=True)
    (bob / "data" / "part-0.jsonl").write_text(json.dumps({"secret": SECRET}) + "\n")
    (bob / "out").mkdir()
    (bob / "out" / "part-0-1.jsonl").write_text(json.dumps({"committed": SECRET}) + "\n")
    alice.mkdir()
    (alice / "link").symlink_to(bob)
    grant(user, alice)
    grant(other_user, bob)
    grant(user, ALLOWED_HTTP, kind="url")
    grant(user, ALLOWED_REDIS, kind="redis")
    grant(user, ALLOWED_POSTGRES, kind="postgres")
    grant(user, ALLOWED_KAFKA, kind="kafka")
    return {"alice": alice, "bob": bob, "workspaces": tmp_path / "workspaces"}


def escapes(kind: str, places: dict) -> dict[str, str]:
    """Every way a value of ``kind`` could reach something not granted, by name."""
    bob = places["bob"]
    if kind == "path":
        return {
            "absolute": str(bob / "data"),
            "relative-dotdot": "../" * 30 + str(bob / "data").lstrip("/"),
            "absolute-dotdot": f"{places['alice']}/../bob/data",
            "symlink": str(places["alice"] / "link" / "data"),
            "file-url": f"file://{bob / 'data'}",
            "http-url": "http://127.0.0.1:9/data",
            "memory-url": "memory://data",
            "chained-url": f"simplecache::file://{bob / 'data'}",
            "home": "~/data",
        }
    if kind == "url":
        return {
            "other-host": '"http://127.0.0.1:9/profiles"',
            "record-chooses-host": 'f"http://{x}/profiles"',
            "host-not-closed": f'f"{ALLOWED_HTTP}{{x}}"',
            "user-info": '"http://allowed.internal@127.0.0.1:9/"',
            "file-url": f'"file://{bob / "data" / "part-0.jsonl"}"',
            "not-a-literal": "x",
            "dotdot": f'"{ALLOWED_HTTP}/../admin"',
        }
    if kind == "redis":
        return {
            "other-host": "redis://127.0.0.1:9/0",
            "studio-redis": "",
            "other-database": "redis://allowed-redis.internal:6379/5",
            "query-host": "redis://allowed-redis.internal:6379/0?host=127.0.0.1",
            "unix-socket": f"unix://{bob / 'redis.sock'}",
        }
    if kind == "postgres":
        return {
            "other-host": "postgresql://u@127.0.0.1:9/app",
            "query-host": "postgresql://u@allowed-pg.internal:5432/app?host=127.0.0.1",
            "service": "host=allowed-pg.internal dbname=app service=other",
            "key-value-other-host": "host=127.0.0.1 port=9 dbname=app",
            "other-database": "postgresql://u@allowed-pg.internal:5432/postgres",
        }
    if kind == "kafka":
        return {
            "other-host": "127.0.0.1:9",
            "one-granted-one-not": "broker-1.internal:9092,127.0.0.1:9",
            "other-port": "broker-1.internal:9093",
            "scheme": "SSL://broker-1.internal:9092",
            "user-info": "x@broker-1.internal:9092",
            "empty-entry": "broker-1.internal:9092,,",
        }
    raise AssertionError(f"no escape variants for location kind {kind!r}: add them here")


def granted(kind: str, places: dict) -> str:
    return {"path": str(places["alice"] / "data"), "url": f'f"{ALLOWED_HTTP}/profiles/{{x}}"',
            "redis": ALLOWED_REDIS, "postgres": f"{ALLOWED_POSTGRES}?sslmode=disable",
            "kafka": "BROKER-2.internal:9092"}[kind]


def test_every_location_kind_of_the_catalog_has_escape_variants(places):
    assert LOCATION_PARAMETERS, "the catalog marks no location parameters"
    for kind in {kind for _, _, kind in LOCATION_PARAMETERS}:
        assert kind in KINDS and escapes(kind, places)


def definition_with(type_: str, field: str, value: str) -> dict:
    """A definition in which the node ``target`` of ``type_`` has ``field = value`` and every other required
    parameter a plain value; sources feed a collecting sink, others are fed by a generator."""
    spec = operator_spec(type_)
    properties = spec["params_schema"]["properties"]
    params = {name: _filler(properties[name]) for name in spec["params_schema"]["required"]}
    params[field] = value
    nodes = [{"id": "target", "type": type_, "params": params}]
    edges = []
    if not spec["source"]:
        nodes.insert(0, {"id": "gen", "type": "source.datagen", "params": {"count": 3}})
        edges.append({"id": "in", "from": "gen", "to": "target"})
    if not spec["sink"]:
        nodes.append({"id": "out", "type": "sink.collect", "params": {}})
        edges.append({"id": "out", "from": "target", "to": "out"})
    return {"format": 1, "name": f"probe {type_}", "nodes": nodes, "edges": edges}


def _filler(schema: dict):
    if schema.get("format") == "expression":
        return "str(x)"
    if schema.get("type") == "array":
        return [_filler(schema["items"])]
    if schema.get("type") == "integer":
        return schema.get("minimum", 1)
    if schema.get("pattern"):
        return "probe"
    return "probe"


def files_of(directory: Path) -> dict[str, str]:
    """Every file below ``directory`` (symlinks not followed) with its content."""
    return {str(path.relative_to(directory)): path.read_text() for path in sorted(directory.rglob("*"))
            if path.is_file() and not path.is_symlink()}


def refused_at(problems: list[dict], field: str) -> list[str]:
    return [problem["message"] for problem in problems
            if problem.get("node") == "target" and problem.get("field") == f"params.{field}"]


@pytest.mark.parametrize("type_, field, kind", LOCATION_PARAMETERS, ids=[f"{t}.{f}" for t, f, _ in LOCATION_PARAMETERS])
def test_escapes_are_refused_in_validate_preview_and_run_naming_node_and_field(api, user, places, type_, field,
                                                                             kind):
    bob_before = files_of(places["bob"])
    allowed = api.post("/api/pipelines/validate", {"definition": definition_with(type_, field, granted(kind, places))},
                       format="json").json()
    assert refused_at(allowed["errors"], field) == [], allowed  # the control: a granted value passes
    pipeline = api.post("/api/pipelines", {"name": "probe", "definition": simple_pipeline()}, format="json").json()
    for variant, value in escapes(kind, places).items():
        definition = definition_with(type_, field, value)
        validated = api.post("/api/pipelines/validate", {"definition": definition}, format="json")
        assert validated.status_code == 200 and validated.json()["valid"] is False
        assert refused_at(validated.json()["errors"], field), (variant, validated.json())

        previewed = api.post("/api/preview", {"definition": definition, "limit": 5}, format="json")
        assert previewed.status_code == 400, (variant, previewed.content)
        assert refused_at(previewed.json()["errors"], field), (variant, previewed.json())
        assert SECRET not in previewed.content.decode()

        saved = api.put(f"/api/pipelines/{pipeline['id']}", {"definition": definition}, format="json")
        assert saved.status_code == 400 and refused_at(saved.json()["errors"], field), (variant, saved.content)
        # saved while it was allowed (or written around the API): starting it is refused all the same
        Pipeline.objects.get(pk=pipeline["id"]).save_version(definition, f"written around the API: {variant}", user)
        started = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
        assert started.status_code == 400, (variant, started.content)
        assert refused_at(started.json()["errors"], field), (variant, started.json())
    assert not Run.objects.filter(pipeline_id=pipeline["id"]).exists()
    assert files_of(places["bob"]) == bob_before


def test_relative_paths_resolve_in_the_pipelines_own_workspace(api, places):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline()}, format="json").json()
    workspace = places["workspaces"] / f"pipeline-{pipeline['id']}"
    workspace.mkdir(parents=True)
    (workspace / "in.jsonl").write_text('{"n": 1}\n{"n": 2}\n')
    definition = definition_with("source.file", "path", "in.jsonl")
    previewed = api.post("/api/preview", {"definition": definition, "pipeline": pipeline["id"]}, format="json")
    assert previewed.status_code == 200, previewed.content
    assert previewed.json()["nodes"]["target"]["records"] == [{"n": 1}, {"n": 2}]
    draft = api.post("/api/preview", {"definition": definition}, format="json").json()  # the draft workspace: empty
    assert draft["nodes"]["target"]["records"] == []


def test_a_pipeline_another_user_cannot_view_is_no_workspace(api, other_api, places):
    theirs = other_api.post("/api/pipelines", {"name": "b", "definition": simple_pipeline()}, format="json").json()
    response = api.post("/api/pipelines/validate", {"definition": simple_pipeline(), "pipeline": theirs["id"]},
                        format="json")
    assert response.status_code == 404


def test_a_read_only_grant_refuses_sinks(api, user, grant, tmp_path, settings):
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    reference = grant(user, tmp_path / "reference", write=False)
    source = api.post("/api/pipelines/validate", {"definition": definition_with(
        "source.file", "path", str(tmp_path / "reference" / "in.jsonl"))}, format="json").json()
    assert source["valid"] is True, source
    sink = api.post("/api/pipelines/validate", {"definition": definition_with(
        "sink.file", "path", str(tmp_path / "reference" / "out"))}, format="json").json()
    assert refused_at(sink["errors"], "path") == [f"'{tmp_path}/reference/out': location '{reference.name}' is "
                                                  "granted to you for reading only"]


# --- sink ownership ---------------------------------------------------------------------------


@pytest.fixture
def team(user, other_user, grant, tmp_path, settings):
    """A directory granted to a group Alice and Bob are in."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    group = Group.objects.create(name="team")
    group.user_set.add(user, other_user)
    location = grant(user, tmp_path / "team")
    LocationGrant.objects.filter(location=location).update(user=None, group=group)
    return tmp_path / "team", location


def test_a_sink_target_belongs_to_one_pipeline(api, other_api, team):
    directory, _ = team
    mine = api.post("/api/pipelines", {"name": "a", "definition": definition_with(
        "sink.file", "path", str(directory / "out"))}, format="json")
    assert mine.status_code == 201, mine.content
    assert list(SinkClaim.objects.values_list("target", flat=True)) == [str(directory / "out")]
    for target in (directory / "out", directory / "out" / "below", directory):
        theirs = other_api.post("/api/pipelines", {"name": "b", "definition": definition_with(
            "sink.file", "path", str(target))}, format="json")
        assert theirs.status_code == 400, theirs.content
        assert refused_at(theirs.json()["errors"], "path")[0].startswith(f"{target} is written by another pipeline")
        validated = other_api.post("/api/pipelines/validate", {"definition": definition_with(
            "sink.parquet", "path", str(target))}, format="json").json()
        assert "another pipeline" in refused_at(validated["errors"], "path")[0]
    assert Pipeline.objects.count() == 1  # the refused creations left nothing behind
    second_of_mine = api.post("/api/pipelines", {"name": "a2", "definition": definition_with(
        "sink.file", "path", str(directory / "out"))}, format="json")
    assert second_of_mine.status_code == 400  # one pipeline, not one user
    again = api.put(f"/api/pipelines/{mine.json()['id']}", {"definition": definition_with(
        "sink.file", "path", str(directory / "elsewhere"))}, format="json")
    assert again.status_code == 200  # a new version moves the claim
    assert list(SinkClaim.objects.values_list("target", flat=True)) == [str(directory / "elsewhere")]
    assert other_api.post("/api/pipelines", {"name": "b", "definition": definition_with(
        "sink.file", "path", str(directory / "out"))}, format="json").status_code == 201
    assert not any(directory.rglob("*"))  # saving wrote nothing


def test_a_shared_location_lets_several_pipelines_write(api, other_api, team):
    directory, location = team
    location.shared = True
    location.save()
    for client in (api, other_api):
        assert client.post("/api/pipelines", {"name": "s", "definition": definition_with(
            "sink.file", "path", str(directory / "out"))}, format="json").status_code == 201
    assert not SinkClaim.objects.exists()


@pytest.mark.parametrize("type_, server, spellings", [
    ("sink.redis_stream", "redis://shared-redis.internal:6379/2",
     ["redis://shared-redis.internal:6379/2", "redis://SHARED-REDIS.internal?db=2", "redis://:pw@shared-redis.internal/2"]),
    ("sink.postgres", "postgresql://shared-pg.internal:5432/app",
     ["postgresql://a@shared-pg.internal/app", "host=shared-pg.internal dbname=app user=b password=x"]),
])
def test_a_stream_or_table_belongs_to_one_pipeline(api, other_api, user, other_user, grant, settings, tmp_path,
                                                   type_, server, spellings):
    """Two users granted one server: the first pipeline writing a stream or table owns it, however the
    second spells the server's address; another stream or table, or another database, is free."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    kind = "redis" if type_ == "sink.redis_stream" else "postgres"
    target = "stream" if kind == "redis" else "table"
    for someone in (user, other_user):
        grant(someone, server.rsplit("/", 1)[0], kind=kind)

    def save(client, url, name):
        definition = definition_with(type_, "url", url)
        definition["nodes"][-1]["params"][target] = name
        return client.post("/api/pipelines", {"name": name, "definition": definition}, format="json")

    mine = save(api, spellings[0], "orders")
    assert mine.status_code == 201, mine.content
    claim = SinkClaim.objects.get()
    assert claim.target.endswith("#orders" if kind == "redis" else "#public.orders")
    assert "pw" not in claim.target and "password" not in claim.target, "a claim holds no credentials"
    for url in spellings:
        for name in (["orders"] if kind == "redis" else ["orders", "public.orders"]):
            theirs = save(other_api, url, name)
            assert theirs.status_code == 400, (url, name, theirs.content)
            assert "written by another pipeline" in refused_at(theirs.json()["errors"], target)[0]
    assert save(other_api, spellings[0], "refunds").status_code == 201
    elsewhere = server.rsplit("/", 1)[0] + ("/3" if kind == "redis" else "/reports")
    assert save(other_api, elsewhere, "orders").status_code == 201


def test_a_kafka_topic_belongs_to_one_pipeline_however_its_cluster_is_listed(api, other_api, user, other_user, grant,
                                                                            settings, tmp_path):
    """Two users granted one cluster: the first pipeline writing a topic owns it, whichever of the
    cluster's brokers the second lists; another topic is free, and so is the same topic elsewhere."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    for someone in (user, other_user):
        grant(someone, "kafka://k1.internal:9092,k2.internal:9092", kind="kafka")
        grant(someone, "kafka://other.internal:9092", kind="kafka")

    def save(client, bootstrap, topic):
        definition = definition_with("sink.kafka", "bootstrap_servers", bootstrap)
        definition["nodes"][-1]["params"]["topic"] = topic
        return client.post("/api/pipelines", {"name": topic, "definition": definition}, format="json")

    mine = save(api, "k1.internal:9092", "orders")
    assert mine.status_code == 201, mine.content
    assert SinkClaim.objects.get().target == "kafka://k1.internal:9092,k2.internal:9092#orders"
    for bootstrap in ("k2.internal:9092", "K1.internal:9092,k2.internal:9092"):
        theirs = save(other_api, bootstrap, "orders")
        assert theirs.status_code == 400, theirs.content
        assert "written by another pipeline" in refused_at(theirs.json()["errors"], "topic")[0]
    assert save(other_api, "k2.internal:9092", "refunds").status_code == 201
    assert save(other_api, "other.internal:9092", "orders").status_code == 201


def test_a_run_is_refused_when_its_stream_was_claimed_after_it_was_saved(api, other_api, user, other_user, grant,
                                                                        settings, tmp_path):
    """The run's driver checks the claims again: a pipeline saved before the rule (or the claim) existed
    cannot write into a stream another pipeline owns."""
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    for someone in (user, other_user):
        grant(someone, "redis://shared-redis.internal:6379", kind="redis")
    definition = definition_with("sink.redis_stream", "url", "redis://shared-redis.internal:6379/0")
    definition["nodes"][-1]["params"]["stream"] = "orders"
    mine = api.post("/api/pipelines", {"name": "a", "definition": definition}, format="json").json()
    SinkClaim.objects.all().delete()  # as if saved before the claim existed
    assert other_api.post("/api/pipelines", {"name": "b", "definition": definition}, format="json").status_code == 201
    from studio.locations import LocationsRefused, resolve_run_locations

    run = Run.objects.create(pipeline_id=mine["id"], version=Pipeline.objects.get(pk=mine["id"]).versions.latest("number"),
                             created_by=user)
    with pytest.raises(LocationsRefused, match="written by another pipeline"):
        resolve_run_locations(run, definition)


# --- snapshots ----------------------------------------------------------------------------------


def write_snapshot(directory: Path, state_file: str | None = None) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    metadata = {"format": 1, "checkpoint_id": 3, "kind": "savepoint", "vertices": {},
                "tasks": {"v#0": {"operators": {"gen": {}}, **({"path": state_file} if state_file else {})}}}
    (directory / "_metadata").write_text(json.dumps(metadata))
    return str(directory)


@pytest.fixture
def bobs_savepoint(other_api, other_user, tmp_path, settings):
    """A savepoint of Bob's run, where the studio keeps checkpoints (not granted to anyone)."""
    settings.CHECKPOINT_ROOT = str(tmp_path / "checkpoints")
    pipeline = other_api.post("/api/pipelines", {"name": "b", "definition": simple_pipeline()}, format="json").json()
    run = Run.objects.create(pipeline_id=pipeline["id"], version=Pipeline.objects.get(pk=pipeline["id"]).latest_version(),
                             created_by=other_user, status="FINISHED",
                             checkpoint_dir=str(tmp_path / "checkpoints" / "run-1"))
    path = signed_snapshot(tmp_path / "checkpoints" / "run-1" / "savepoint-3", run.pipeline, run=run, checkpoint_id=3)
    Checkpoint.objects.create(run=run, checkpoint_id=3, kind="savepoint", status="COMPLETED", trigger_timestamp=1,
                              external_path=path)
    return path


def test_restore_by_path_of_another_users_snapshot_is_refused(api, other_api, places, bobs_savepoint):
    mine = api.post("/api/pipelines", {"name": "a", "definition": simple_pipeline()}, format="json").json()
    link = places["alice"] / "their-savepoint"
    link.symlink_to(bobs_savepoint)
    forged = write_snapshot(places["alice"] / "forged", state_file="../../checkpoints/run-1/savepoint-3/v-0.state")
    (places["alice"] / "linked").mkdir()
    (places["alice"] / "linked" / "v-0.state").symlink_to(Path(bobs_savepoint) / "v-0.state")
    linked = write_snapshot(places["alice"] / "linked", state_file="v-0.state")
    for path in (bobs_savepoint, f"file://{bobs_savepoint}", str(link), forged, linked,
                 f"{places['alice']}/../checkpoints/run-1/savepoint-3"):
        response = api.post(f"/api/pipelines/{mine['id']}/runs", {"restore_from": {"path": path}}, format="json")
        assert response.status_code in (400, 403), (path, response.content)
        assert "restore_from.path" in response.json()["detail"], response.json()
    assert not Run.objects.filter(pipeline_id=mine["id"]).exists()
    # Bob may (Alice may once Bob lets her run the pipeline: the next test)
    theirs = Run.objects.get().pipeline
    assert other_api.post(f"/api/pipelines/{theirs.id}/runs", {"restore_from": {"path": bobs_savepoint}},
                          format="json").status_code == 201


def test_restore_by_path_is_allowed_for_pipelines_one_may_run(api, user, other_api, places, bobs_savepoint):
    mine = api.post("/api/pipelines", {"name": "a", "definition": simple_pipeline()}, format="json").json()
    theirs = Run.objects.get().pipeline
    group = Group.objects.create(name="runners")
    group.user_set.add(user)
    share = other_api.post(f"/api/pipelines/{theirs.id}/shares", {"group": "runners", "permissions": ["view"]},
                           format="json")
    assert share.status_code == 201
    viewing = api.post(f"/api/pipelines/{mine['id']}/runs", {"restore_from": {"path": bobs_savepoint}}, format="json")
    assert viewing.status_code == 403  # viewing is not enough
    theirs.shares.update(can_run=True)
    running = api.post(f"/api/pipelines/{mine['id']}/runs", {"restore_from": {"path": bobs_savepoint}}, format="json")
    assert running.status_code == 201, running.content


def test_savepoint_targets_must_be_granted(api, places):
    pipeline = api.post("/api/pipelines", {"name": "a", "definition": simple_pipeline()}, format="json").json()
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    from studio.runs.events import set_status

    set_status(run["id"], "RUNNING")
    for target in (str(places["bob"]), str(places["alice"] / "link"), f"{places['alice']}/../bob"):
        for action in ("savepoints", "stop"):
            response = api.post(f"/api/runs/{run['id']}/{action}", {"target_directory": target}, format="json")
            assert response.status_code == 400 and "target_directory" in response.json()["detail"], response.content
    accepted = api.post(f"/api/runs/{run['id']}/savepoints", {"target_directory": str(places["alice"] / "sp")},
                        format="json")
    assert accepted.status_code == 202


# --- at run time ------------------------------------------------------------------------------


def run_driver_for(pipeline_id: int, user) -> Run:
    """Start a run's driver in this process, as the launch task would (it refuses before Spark starts)."""
    from studio.runs.driver import main

    pipeline = Pipeline.objects.get(pk=pipeline_id)
    run = Run.objects.create(pipeline=pipeline, version=pipeline.latest_version(), created_by=user,
                             status="SCHEDULING")
    assert main([str(run.id)]) == 0
    run.refresh_from_db()
    return run


def test_the_driver_checks_again_a_grant_revoked_after_the_run_was_saved(api, user, places):
    output = places["alice"] / "out"
    definition = definition_with("source.file", "path", str(places["alice"] / "in.jsonl"))
    definition["nodes"][-1] = {"id": "out", "type": "sink.file", "params": {"path": str(output)}}
    saved = api.post("/api/pipelines", {"name": "a", "definition": definition}, format="json")
    assert saved.status_code == 201, saved.content
    LocationGrant.objects.filter(user=user, location__prefix=str(places["alice"])).delete()
    run = run_driver_for(saved.json()["id"], user)
    assert run.status == "FAILED"
    assert "node 'target' params.path" in run.failure_cause and "node 'out' params.path" in run.failure_cause
    assert not output.exists()


def test_the_driver_resolves_symlinks_when_the_run_starts(api, user, places):
    swapped = places["alice"] / "swapped"
    swapped.mkdir()
    saved = api.post("/api/pipelines", {"name": "a", "definition": definition_with(
        "source.file", "path", str(swapped / "data"))}, format="json")
    assert saved.status_code == 201, saved.content
    swapped.rmdir()
    swapped.symlink_to(places["bob"])  # after it was checked, before it runs
    run = run_driver_for(saved.json()["id"], user)
    assert run.status == "FAILED" and "node 'target' params.path" in run.failure_cause
    assert f"resolves to {places['bob'] / 'data'}" in run.failure_cause
    assert SECRET not in json.dumps(run.collected)


# --- administration ---------------------------------------------------------------------------


def test_administrators_configure_locations_and_grants_over_rest(api, user, other_user, django_user_model,
                                                                 tmp_path):
    admin = token_client(django_user_model.objects.create_user("root", password="pw", is_staff=True))
    created = admin.post("/api/locations", {"name": "lake", "kind": "path", "prefix": str(tmp_path / "lake")},
                         format="json")
    assert created.status_code == 201, created.content
    location = created.json()["id"]
    assert api.post("/api/locations", {"name": "mine", "kind": "path", "prefix": "/"},
                    format="json").status_code == 403
    assert [l["name"] for l in api.get("/api/locations").json()] == ["user-data"]
    granted = admin.post(f"/api/locations/{location}/grants", {"user": "alice", "can_write": False}, format="json")
    assert granted.status_code == 201, granted.content
    assert admin.post(f"/api/locations/{location}/grants", {"user": "alice", "group": None, "can_write": True},
                      format="json").status_code == 201
    assert admin.post(f"/api/locations/{location}/grants", {}, format="json").status_code == 400
    listed = {l["name"]: l for l in api.get("/api/locations").json()}
    assert listed["lake"]["resolved_prefix"] == str(tmp_path / "lake") and listed["lake"]["grants"] == []
    assert listed["user-data"]["resolved_prefix"].endswith("/users/alice")
    assert api.get(f"/api/locations/{location}/grants").status_code == 403
    assert admin.delete(f"/api/locations/{location}/grants/{granted.json()['id']}").status_code == 204
    assert admin.post("/api/locations", {"name": "bad", "kind": "redis", "prefix": "http://x"},
                      format="json").status_code == 400
    assert admin.post("/api/locations", {"name": "bad", "kind": "path", "prefix": "/a/../b"},
                      format="json").status_code == 400


def test_every_user_has_a_directory_of_their_own_by_default(api, other_api, settings):
    mine = str(Path(settings.DATA_DIR) / "users" / "alice" / "out")
    assert api.post("/api/pipelines/validate", {"definition": definition_with("sink.file", "path", mine)},
                    format="json").json()["valid"] is True
    theirs = other_api.post("/api/pipelines/validate", {"definition": definition_with("sink.file", "path", mine)},
                            format="json").json()
    assert "outside the locations granted to you" in refused_at(theirs["errors"], "path")[0]
    assert not os.path.exists(mine)
