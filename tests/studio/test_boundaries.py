"""Trust at the boundaries: restored state, links and redirects, tried by a hostile second user.

Alice is the attacker, Bob the victim; both are ordinary users with a directory each. Every
test does what Alice could do through the studio with real files on disk (and, where the
finding was about a run, a real run on Spark), and checks that Bob's files and everything
outside Alice's own locations are exactly as they were:

1. a snapshot she planted (her own savepoint, one state file rewritten) moves no file;
2. another user's savepoint reached through a symlink in her own savepoint directory is refused;
3. a symlink inside her granted directory to Bob's file is read by no source (file, Parquet, hybrid);
4. ``lookup.http`` follows no redirect out of her granted addresses, and takes no ``Host`` header;
6. her sink directory swapped for a symlink to Bob's while the run writes fails the run.
"""
from __future__ import annotations

import http.server
import json
import pickle
import shutil
import threading
from pathlib import Path

import pytest

from studio.models import Checkpoint, Pipeline, Run
from tests.support import signed_snapshot, simple_pipeline, wait_until

SECRET = "bob-secret-5d21"
RUN_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine


@pytest.fixture
def places(tmp_path, settings, user, other_user, grant):
    """Alice's and Bob's granted directories; Bob's holds data (JSON lines and Parquet) and committed output."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    settings.CHECKPOINT_ROOT = str(tmp_path / "checkpoints")
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    (bob / "data").mkdir(parents=True)
    (bob / "data" / "secret.jsonl").write_text(json.dumps({"secret": SECRET}) + "\n")
    pq.write_table(pa.table({"secret": [SECRET]}), bob / "data" / "secret.parquet")
    (bob / "out").mkdir()
    (bob / "out" / "part-0-1.jsonl").write_text(json.dumps({"committed": SECRET}) + "\n")
    alice.mkdir()
    grant(user, alice)
    grant(other_user, bob)
    return {"root": tmp_path, "alice": alice, "bob": bob}


def listing(root: Path, *, without: tuple[Path, ...] = ()) -> dict[str, str]:
    """Every entry below ``root`` (links not followed) with its content or link target, except below ``without``."""
    entries = {}
    for path in sorted(root.rglob("*")):
        if any(path == skipped or skipped in path.parents for skipped in without):
            continue
        if path.is_symlink():
            entries[str(path.relative_to(root))] = f"-> {path.readlink()}"
        elif path.is_file():
            entries[str(path.relative_to(root))] = path.read_bytes().hex()
        else:
            entries[str(path.relative_to(root))] = "dir"
    return entries


def create_pipeline(api, definition: dict) -> int:
    response = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def status_of(run_id: int) -> str:
    return Run.objects.get(pk=run_id).status


def ended(run_id: int) -> Run:
    return wait_until(lambda: (lambda run: run if run.status in ("FINISHED", "FAILED", "CANCELED") else None)(
        Run.objects.get(pk=run_id)), RUN_TIMEOUT, f"run {run_id} to end")


def file_sink_job(output: Path, name: str = "to-files") -> dict:
    return {"format": 1, "name": name, "parallelism": 1, "checkpointing": {"interval_ms": 200},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 200}},
                      {"id": "files", "type": "sink.file", "params": {"path": str(output)}}],
            "edges": [{"id": "e1", "from": "gen", "to": "files"}]}


def stop_with_savepoint(api, run_id: int, target: Path) -> dict:
    wait_until(lambda: Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").exists(), RUN_TIMEOUT,
               "a completed checkpoint")
    stop = api.post(f"/api/runs/{run_id}/stop", {"drain": False, "target_directory": str(target)}, format="json")
    assert stop.status_code == 202, stop.content
    request = wait_until(lambda: (lambda r: r if r["status"] != "IN_PROGRESS" else None)(
        api.get(f"/api/runs/{run_id}/savepoints/{stop.json()['request_id']}").json()), 60, "the stop's savepoint")
    assert request["status"] == "COMPLETED", request
    assert ended(run_id).status == "FINISHED"
    return request


def rewrite_sink_state(savepoint: Path, pending: list[dict]) -> None:
    """Rewrite the file sink's operator state with plain dicts and strings (what the safe unpickler allows):
    ``pending`` transactions of her choosing, and no transaction prefix, so a restore commits them."""
    (state_file,) = [path for path in savepoint.iterdir() if path.suffix == ".state"]
    payload = pickle.loads(state_file.read_bytes())
    sink = payload["operators"]["files"]["operator"]
    for name in ("broadcast/transaction_prefix", "transaction_prefix"):  # the sink's prefix, as now and as before
        sink.pop(name, None)
    sink["pending"] = pending
    state_file.write_bytes(pickle.dumps(payload))


# --- 1. a planted snapshot ---------------------------------------------------------------------


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_finding_1_a_planted_snapshot_moves_no_file(celery_worker_process, api, places):
    """Alice's own savepoint, copied into her directory with the sink's state rewritten to commit Bob's file
    into her directory and one of hers outside every grant: no restore of it touches a file."""
    alice, bob, root = places["alice"], places["bob"], places["root"]
    pipeline_id = create_pipeline(api, file_sink_job(alice / "out"))
    first = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]
    savepoint = stop_with_savepoint(api, first, alice / "sp")
    planted = alice / "planted"
    shutil.copytree(savepoint["location"], planted)
    (alice / "mine.jsonl").write_text("{}\n")
    moves = [{"pending": str(bob / "out" / "part-0-1.jsonl"), "final": str(alice / "stolen.jsonl"), "records": 1,
              "checkpoint_id": 1},
             {"pending": str(alice / "mine.jsonl"), "final": str(root / "outside.jsonl"), "records": 1,
              "checkpoint_id": 1}]
    rewrite_sink_state(planted, moves)
    rewrite_sink_state(Path(savepoint["location"]), moves)  # her savepoint itself, rewritten after it was recorded
    forged = alice / "forged"  # and a copy whose metadata she rewrote too (it is hers, in her directory)
    shutil.copytree(planted, forged)
    metadata = json.loads((forged / "_metadata").read_text())
    metadata["tasks"] = {name: {**handle, "sha256": None} if handle else handle
                         for name, handle in metadata["tasks"].items()}
    (forged / "_metadata").write_text(json.dumps(metadata))
    before = listing(root, without=(alice / "out", root / "checkpoints"))

    # the metadata is hers and intact, so the studio takes it; the rewritten state file is refused when it is read
    by_path = api.post(f"/api/pipelines/{pipeline_id}/runs", {"restore_from": {"path": str(planted)}}, format="json")
    assert by_path.status_code == 201, by_path.content
    run = ended(by_path.json()["id"])
    assert run.status == "FAILED", run.failure_cause
    assert str(planted) in run.failure_cause and "state file" in run.failure_cause, run.failure_cause
    by_row = api.post(f"/api/pipelines/{pipeline_id}/runs", {"restore_from": {"pk": savepoint["checkpoint_pk"]}},
                      format="json")
    assert by_row.status_code == 201, by_row.content
    run = ended(by_row.json()["id"])
    assert run.status == "FAILED" and savepoint["location"] in run.failure_cause, run.failure_cause
    refused = api.post(f"/api/pipelines/{pipeline_id}/runs", {"restore_from": {"path": str(forged)}}, format="json")
    assert refused.status_code == 400, refused.content
    assert str(forged) in refused.json()["detail"] and "signature" in refused.json()["detail"], refused.json()

    assert listing(root, without=(alice / "out", root / "checkpoints")) == before
    assert (bob / "out" / "part-0-1.jsonl").read_text() == json.dumps({"committed": SECRET}) + "\n"
    assert not (root / "outside.jsonl").exists() and not (alice / "stolen.jsonl").exists()


# --- 2. another user's savepoint through a symlink ------------------------------------------------


@pytest.fixture
def two_savepoints(api, other_api, user, other_user, places):
    """Bob's savepoint where the studio keeps checkpoints, and Alice's own in her directory, both real rows."""
    bobs_pipeline = Pipeline.objects.get(pk=create_pipeline(other_api, simple_pipeline(name="b")))
    bobs_run = Run.objects.create(pipeline=bobs_pipeline, version=bobs_pipeline.latest_version(),
                                  created_by=other_user, status="FINISHED",
                                  checkpoint_dir=str(places["root"] / "checkpoints" / "run-b"))
    bobs = signed_snapshot(places["root"] / "checkpoints" / "run-b" / "savepoint-3", bobs_pipeline, run=bobs_run,
                           checkpoint_id=3)
    Checkpoint.objects.create(run=bobs_run, checkpoint_id=3, kind="savepoint", status="COMPLETED",
                              trigger_timestamp=1, external_path=bobs)
    alices_pipeline = Pipeline.objects.get(pk=create_pipeline(api, simple_pipeline(name="a")))
    alices_run = Run.objects.create(pipeline=alices_pipeline, version=alices_pipeline.latest_version(),
                                    created_by=user, status="FINISHED")
    alices = signed_snapshot(places["alice"] / "sp" / "savepoint-3", alices_pipeline, run=alices_run, checkpoint_id=3)
    Checkpoint.objects.create(run=alices_run, checkpoint_id=3, kind="savepoint", status="COMPLETED",
                              trigger_timestamp=1, external_path=alices)
    return {"bobs": bobs, "alices": alices, "alices_pipeline": alices_pipeline, "bobs_pipeline": bobs_pipeline}


@pytest.mark.django_db
def test_finding_2_another_users_savepoint_through_a_symlink_in_ones_own_savepoint_is_refused(
        api, other_api, places, two_savepoints):
    alices, bobs, pipeline = Path(two_savepoints["alices"]), two_savepoints["bobs"], two_savepoints["alices_pipeline"]
    (alices / "theirs").symlink_to(bobs)
    (alices.parent / "theirs").symlink_to(bobs)
    copied = places["alice"] / "copied"  # a copy of Bob's files: the signature names his pipeline
    shutil.copytree(bobs, copied)
    for path in (alices / "theirs", alices.parent / "theirs", f"file://{alices}/theirs", copied):
        response = api.post(f"/api/pipelines/{pipeline.id}/runs", {"restore_from": {"path": str(path)}},
                            format="json")
        assert response.status_code == 403, (path, response.content)
        assert "restore_from.path" in response.json()["detail"], response.json()
    assert not Run.objects.filter(pipeline=pipeline).exclude(status="FINISHED").exists()
    # the control: her own savepoint, and Bob restoring his
    assert api.post(f"/api/pipelines/{pipeline.id}/runs", {"restore_from": {"path": str(alices)}},
                    format="json").status_code == 201
    assert other_api.post(f"/api/pipelines/{two_savepoints['bobs_pipeline'].id}/runs",
                          {"restore_from": {"path": bobs}}, format="json").status_code == 201


@pytest.mark.django_db
def test_finding_2_a_savepoint_swapped_for_a_symlink_after_the_check_is_refused_by_the_driver(
        api, user, places, two_savepoints):
    """Accepted as her own, then swapped for a link to Bob's before the run's driver starts: the driver checks
    the snapshot again when it opens it."""
    from studio.runs.driver import main

    alices, pipeline = Path(two_savepoints["alices"]), two_savepoints["alices_pipeline"]
    accepted = api.post(f"/api/pipelines/{pipeline.id}/runs", {"restore_from": {"path": str(alices)}}, format="json")
    assert accepted.status_code == 201, accepted.content
    run = Run.objects.get(pk=accepted.json()["id"])
    shutil.rmtree(alices)
    alices.symlink_to(two_savepoints["bobs"])
    Run.objects.filter(pk=run.pk).update(status="SCHEDULING")
    assert main([str(run.pk)]) == 0
    run.refresh_from_db()
    assert run.status == "FAILED" and "restore_from" in run.failure_cause, run.failure_cause


# --- 3. symlinked files inside a granted directory --------------------------------------------------


def source_definition(type_: str, path: str, redis_url: str = "") -> dict:
    params = {"path": path}
    if type_ == "source.hybrid":
        params.update(stream="live", url=redis_url, bounded=True, start_id="0-0")
    return {"format": 1, "name": f"read {type_}", "parallelism": 1, "checkpointing": {"interval_ms": 200},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "target", "type": type_, "params": params},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 1000}}],
            "edges": [{"id": "e1", "from": "target", "to": "out"}]}


@pytest.fixture
def linked_inputs(places, redis_server, grant, user):
    """Alice's input directories, each with a file of hers and a link to Bob's file of the same kind."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    alice, bob = places["alice"], places["bob"]
    (alice / "lines").mkdir()
    (alice / "lines" / "a.jsonl").write_text(json.dumps({"mine": 1}) + "\n")
    (alice / "lines" / "s.jsonl").symlink_to(bob / "data" / "secret.jsonl")
    (alice / "columns").mkdir()
    pq.write_table(pa.table({"mine": [1]}), alice / "columns" / "a.parquet")
    (alice / "columns" / "s.parquet").symlink_to(bob / "data" / "secret.parquet")
    grant(user, redis_server.url.rsplit("/", 1)[0], kind="redis")
    return {"source.file": alice / "lines", "source.parquet": alice / "columns", "source.hybrid": alice / "lines"}


def refusals(problems: list[dict]) -> list[str]:
    return [problem["message"] for problem in problems if problem.get("node") == "target"]


@pytest.mark.django_db
@pytest.mark.parametrize("type_", ["source.file", "source.parquet", "source.hybrid"])
def test_finding_3_a_link_to_another_users_file_is_read_in_neither_validate_nor_preview(
        api, places, linked_inputs, redis_server, type_):
    directory = linked_inputs[type_]
    suffix = "*.parquet" if type_ == "source.parquet" else "*.jsonl"
    for path in (str(directory), str(directory / suffix), f"file://{directory}"):
        definition = source_definition(type_, path, redis_server.url)
        validated = api.post("/api/pipelines/validate", {"definition": definition}, format="json")
        assert validated.status_code == 200 and SECRET not in validated.content.decode(), validated.content
        # what validate says does not depend on whether Bob's file exists (no oracle)
        target = (places["bob"] / "data" / ("secret.parquet" if type_ == "source.parquet" else "secret.jsonl"))
        hidden = target.with_name(target.name + ".away")
        target.rename(hidden)
        try:
            assert api.post("/api/pipelines/validate", {"definition": definition},
                            format="json").json() == validated.json(), path
        finally:
            hidden.rename(target)
        previewed = api.post("/api/preview", {"definition": definition, "limit": 20}, format="json")
        assert SECRET not in previewed.content.decode(), (path, previewed.content)
        body = previewed.json()
        assert previewed.status_code == 200 and body["status"] == "FAILED", (path, body)
        assert "node 'target'" in body["failure"] and "s." in body["failure"], body["failure"]
        assert "outside the locations granted" in body["failure"], body["failure"]


@pytest.mark.django_db
def test_finding_3_validate_tells_nothing_about_the_file_behind_a_link(api, places):
    """A folder holding only a link to Bob's file: validate's "no file matches" warning says the same whether
    his file is there or not (it counts only files inside Alice's grants, as a run reads them)."""
    only_link = places["alice"] / "only-link"
    only_link.mkdir()
    (only_link / "s.jsonl").symlink_to(places["bob"] / "data" / "secret.jsonl")
    target = places["bob"] / "data" / "secret.jsonl"
    for path in (str(only_link / "*.jsonl"), str(only_link)):
        definition = source_definition("source.file", path)
        answers = []
        for present in (True, False):
            if not present:
                target.rename(target.with_name("away"))
            answers.append(api.post("/api/pipelines/validate", {"definition": definition}, format="json").json())
            if not present:
                target.with_name("away").rename(target)
        assert answers[0] == answers[1], (path, answers)
        assert [warning["node"] for warning in answers[0]["warnings"]] == ["target"], answers[0]


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_finding_3_a_saved_run_reads_no_link_to_another_users_file(celery_worker_process, api, places,
                                                                    linked_inputs):
    pipeline_id = create_pipeline(api, source_definition("source.file", str(linked_inputs["source.file"])))
    started = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json")
    assert started.status_code == 201, started.content
    run = ended(started.json()["id"])
    assert run.status == "FAILED", run.failure_cause
    assert "node 'target'" in run.failure_cause and "s.jsonl" in run.failure_cause, run.failure_cause
    assert SECRET not in json.dumps(run.collected) and SECRET not in run.failure_cause


# --- 4. redirects and the Host header of lookup.http ----------------------------------------------


class Origin:
    """A real HTTP server on a loopback port: ``/redirect/<n>`` answers 302 to ``Location`` (per ``n``), anything
    else ``{"secret": ...}``; every request it answers is recorded."""

    def __init__(self, locations: dict[str, str] | None = None):
        self.locations = locations or {}
        self.requests: list[tuple[str, str]] = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                origin.requests.append((self.path, self.headers.get("Host", "")))
                key = self.path.rsplit("/", 1)[-1]
                if "/redirect/" in self.path and key in origin.locations:
                    self.send_response(302)
                    self.send_header("Location", origin.locations[key])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps({"secret": SECRET, "path": self.path}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def origins(user, grant):
    """A granted origin (``/api`` only) and an ungranted one on loopback, as Alice's administrator set them up."""
    ungranted = Origin()
    granted = Origin()
    granted.locations.update({
        "0": f"{ungranted.url}/steal",  # another port of the same host
        "1": f"http://localhost:{granted.port}/api/ok",  # the same server under another name: not granted
        "2": "/admin/x",  # the granted host, outside the granted path
        "3": f"{granted.url}/api/ok"})  # inside the grant: followed
    grant(user, f"{granted.url}/api", kind="url")
    yield granted, ungranted
    granted.close()
    ungranted.close()


def lookup_definition(url_expression: str, headers: dict | None = None) -> dict:
    return {"format": 1, "name": "lookups", "parallelism": 1, "checkpointing": {"interval_ms": 200},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 1}},
                      {"id": "target", "type": "lookup.http",
                       "params": {"url": url_expression, "headers": headers or {}}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "gen", "to": "target"}, {"id": "e2", "from": "target", "to": "out"}]}


@pytest.mark.django_db
@pytest.mark.parametrize("hop", ["0", "1", "2"])
def test_finding_4_lookup_http_follows_no_redirect_out_of_the_grants(api, origins, hop):
    granted, ungranted = origins
    definition = lookup_definition(f'f"{granted.url}/api/redirect/{hop}"')
    assert api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()["valid"] is True
    previewed = api.post("/api/preview", {"definition": definition, "limit": 5}, format="json")
    body = previewed.json()
    assert previewed.status_code == 200 and body["status"] == "FAILED", body
    assert "node 'target'" in body["failure"] and "redirect" in body["failure"], body["failure"]
    assert SECRET not in previewed.content.decode()
    assert ungranted.requests == [] and [path for path, _ in granted.requests] == [f"/api/redirect/{hop}"]


@pytest.mark.django_db
def test_finding_4_a_redirect_inside_the_grants_is_followed(api, origins):
    granted, _ = origins
    previewed = api.post("/api/preview", {"definition": lookup_definition(f'f"{granted.url}/api/redirect/3"'),
                                          "limit": 5}, format="json").json()
    assert previewed["status"] == "FINISHED", previewed
    assert previewed["nodes"]["target"]["records"] == [[0, {"secret": SECRET, "path": "/api/ok"}]]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Host", "host", " HOST"])
def test_finding_4_the_host_header_cannot_be_set(api, origins, name):
    granted, ungranted = origins
    definition = lookup_definition(f'f"{granted.url}/api/{{x}}"', headers={name: f"127.0.0.1:{ungranted.port}"})
    validated = api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()
    assert validated["valid"] is False
    assert any(problem["node"] == "target" and problem["field"] == "params.headers"
               and "host" in problem["message"].lower() for problem in validated["errors"]), validated
    assert api.post("/api/preview", {"definition": definition, "limit": 5}, format="json").status_code == 400
    assert granted.requests == [] and ungranted.requests == []


# --- 6. a sink directory swapped for a symlink while the run writes -----------------------------------


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_finding_6_a_sink_directory_swapped_for_a_symlink_fails_the_run(celery_worker_process, api, places):
    alice, bob = places["alice"], places["bob"]
    pipeline_id = create_pipeline(api, file_sink_job(alice / "out"))
    run_id = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]
    wait_until(lambda: Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").count() >= 2, RUN_TIMEOUT,
               "two completed checkpoints")
    bobs_before = listing(bob)
    (alice / "out").rename(alice / "out.old")
    (alice / "out").symlink_to(bob / "out")
    run = wait_until(lambda: (lambda r: r if r.status != "RUNNING" or listing(bob) != bobs_before else None)(
        Run.objects.get(pk=run_id)), 60, "the run to notice the swap (or to write into Bob's directory)")
    assert listing(bob) == bobs_before, "the run wrote into Bob's directory"
    run = ended(run_id)
    assert run.status == "FAILED", run.failure_cause
    assert "node 'files'" in run.failure_cause and str(alice / "out") in run.failure_cause, run.failure_cause
    assert any((alice / "out.old").glob("part-*.jsonl"))  # what it committed before stays where it was written
