"""Data in from the browser (tag "files"): uploads streamed into a granted location and created on demand,
names sanitised, no escape through links or '..', the browser of the granted locations with sizes and a
preview -- as their owner, and as a hostile second user."""
from __future__ import annotations

import json
import os

import pytest

from studio.models import StorageLocation

pytestmark = pytest.mark.django_db


def upload(api, data: bytes, location: str, name: str, directory: str = "", **query):
    params = "&".join(f"{key}={value}" for key, value in
                      {"location": location, "name": name, "directory": directory, **query}.items())
    return api.generic("POST", f"/api/uploads?{params}", data, content_type="application/octet-stream")


@pytest.fixture
def own_location(settings, tmp_path):
    """The default every user has: {data_dir}/users/{user}, granted to all, not created yet."""
    settings.DATA_DIR = tmp_path / "data"
    return StorageLocation.objects.get(name="user-data")


def test_an_upload_creates_the_users_own_directory_and_a_file_source_reads_it(api, own_location, settings):
    places = {place["name"]: place for place in api.get("/api/files").json()}
    mine = places["user-data"]
    assert mine["writable"] is True and mine["exists"] is False and mine["root"].endswith("/users/alice")
    assert api.get("/api/files/user-data").json()["entries"] == []

    rows = b"user,amount\nu1,3\nu2,4\n"
    response = upload(api, rows, "user-data", "orders.csv", "in/2026")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["path"] == os.path.join(mine["root"], "in", "2026", "orders.csv") and body["size"] == len(rows)
    assert open(body["path"], "rb").read() == rows
    assert not [name for name in os.listdir(os.path.dirname(body["path"])) if name.startswith(".upload-")]

    listing = api.get("/api/files/user-data", {"path": "in/2026"}).json()
    assert [(entry["name"], entry["kind"], entry["size"]) for entry in listing["entries"]] == [
        ("orders.csv", "file", len(rows))]
    preview = api.get("/api/files/user-data/preview", {"path": "in/2026/orders.csv"}).json()
    assert preview["lines"] == ["user,amount", "u1,3", "u2,4"] and preview["truncated"] is False

    definition = {"format": 1, "name": "uploaded", "nodes": [
        {"id": "in", "type": "source.file", "params": {"path": body["path"], "format": "csv"}},
        {"id": "out", "type": "sink.collect", "params": {}}], "edges": [{"id": "e", "from": "in", "to": "out"}]}
    result = api.post("/api/preview", {"definition": definition, "limit": 10}, format="json").json()
    assert result["nodes"]["out"]["records"] == [{"user": "u1", "amount": "3"}, {"user": "u2", "amount": "4"}]


def test_names_are_sanitised_and_existing_files_kept_unless_overwritten(api, own_location):
    cases = {"../../etc/passwd": "passwd", "..\\x.csv": "x.csv", ".hidden.csv": "hidden.csv",
             "_tmp data.csv": "tmp data.csv", "a;b|c$.csv": "a_b_c_.csv", "café.json": "caf__.json"}
    for sent, kept in cases.items():
        response = upload(api, b"1\n", "user-data", sent.replace("&", "%26").replace(";", "%3B"))
        assert response.status_code == 201, (sent, response.content)
        assert response.json()["name"] in (kept, kept.replace("__", "é").replace("é", "_")), (sent, response.json())
    for sent in ("..", "...", "", "/", "._"):
        assert upload(api, b"1", "user-data", sent).status_code == 400, sent
    assert upload(api, b"2\n", "user-data", "passwd").status_code == 409
    replaced = upload(api, b"2\n", "user-data", "passwd", overwrite="true")
    assert replaced.status_code == 201 and open(replaced.json()["path"]).read() == "2\n"


def test_no_escape_through_dotdot_or_links(api, own_location, tmp_path):
    assert upload(api, b"x", "user-data", "a.csv", "in").status_code == 201
    root = api.get("/api/files").json()
    root = next(place["root"] for place in root if place["name"] == "user-data")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    os.symlink(outside, os.path.join(root, "link"))
    os.symlink(outside / "secret.txt", os.path.join(root, "secret.txt"))
    for directory in ("../..", "in/../..", "link", "link/deeper", "in/./x"):
        response = upload(api, b"x", "user-data", "b.csv", directory)
        assert response.status_code in (400, 403), (directory, response.content)
    assert not (outside / "b.csv").exists() and not list(outside.glob("**/b.csv"))
    for path in ("link", "../", "link/secret.txt"):
        assert api.get("/api/files/user-data", {"path": path}).status_code == 400, path
    assert api.get("/api/files/user-data/preview", {"path": "secret.txt"}).status_code == 400
    assert api.get("/api/files/user-data/preview", {"path": "link/secret.txt"}).status_code == 400
    entries = {entry["name"]: entry for entry in api.get("/api/files/user-data").json()["entries"]}
    assert entries["link"]["kind"] == "link" and entries["secret.txt"]["kind"] == "link"
    assert entries["secret.txt"]["size"] is None
    # an upload onto a link's name replaces the link, never writes through it
    assert upload(api, b"mine", "user-data", "secret.txt", overwrite="true").status_code == 201
    assert (outside / "secret.txt").read_text() == "secret"


def test_a_hostile_second_user_sees_and_writes_only_their_own(api, other_api, own_location, grant, user, tmp_path):
    assert upload(api, b"alice's", "user-data", "mine.csv").status_code == 201
    assert other_api.get("/api/files/user-data").json()["entries"] == []  # bob's own directory
    assert other_api.get("/api/files/user-data/preview", {"path": "mine.csv"}).status_code == 404
    private = grant(user, tmp_path / "alice-only")
    for response in (other_api.get(f"/api/files/{private.name}"),
                     other_api.get(f"/api/files/{private.name}/preview", {"path": "x"}),
                     upload(other_api, b"x", private.name, "x.csv")):
        assert response.status_code == 404, response.content
    assert private.name not in [place["name"] for place in other_api.get("/api/files").json()]
    read_only = grant(user, tmp_path / "read-only", write=False)
    response = upload(api, b"x", read_only.name, "x.csv")
    assert response.status_code == 403 and "reading only" in response.json()["detail"]
    assert not (tmp_path / "read-only").exists()


def test_uploads_have_their_own_size_limit_and_other_bodies_keep_theirs(api, own_location, settings):
    settings.UPLOAD_MAX_BYTES = 5000
    settings.BODY_LIMITS_BY_PATH = {"/api/uploads": 5000}
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    assert upload(api, b"x" * 4000, "user-data", "fits.bin").status_code == 201
    too_large = upload(api, b"x" * 5001, "user-data", "large.bin")
    assert too_large.status_code == 413 and "limit is 5,000" in too_large.json()["detail"]
    assert api.generic("POST", "/api/pipelines", b"x" * 4000, content_type="application/json").status_code == 413
    listing = api.get("/api/files/user-data").json()
    assert [entry["name"] for entry in listing["entries"]] == ["fits.bin"]


def test_a_parquet_file_previews_its_schema_and_first_rows(api, own_location):
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({"user": [f"u{n}" for n in range(50)], "n": list(range(50))}), buffer)
    assert upload(api, buffer.getvalue(), "user-data", "events.parquet").status_code == 201
    preview = api.get("/api/files/user-data/preview", {"path": "events.parquet"}).json()
    assert preview["kind"] == "parquet" and preview["num_rows"] == 50 and preview["truncated"] is True
    assert preview["columns"] == [{"name": "user", "type": "string"}, {"name": "n", "type": "int64"}]
    assert preview["rows"][:2] == [{"user": "u0", "n": 0}, {"user": "u1", "n": 1}] and len(preview["rows"]) == 20
    assert upload(api, b"not parquet", "user-data", "bad.parquet").status_code == 201
    assert api.get("/api/files/user-data/preview", {"path": "bad.parquet"}).status_code == 400


@pytest.mark.django_db(transaction=True)  # the application reads the token in a thread of its own
def test_through_the_asgi_server_an_upload_streams_past_the_body_limit_up_to_its_own(api, own_location, settings):
    """The ASGI handler keeps an upload's bytes up to the upload limit (other bodies stop at theirs), in
    pieces as a browser sends them; past the upload limit it is a 413 and nothing stays."""
    from asgiref.sync import async_to_sync
    from asgiref.testing import ApplicationCommunicator

    from studio.asgi import application

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    settings.BODY_LIMITS_BY_PATH = {"/api/uploads": 50_000}
    settings.UPLOAD_MAX_BYTES = 50_000

    def send(name: str, pieces: int) -> tuple[int, dict]:
        query = f"location=user-data&name={name}".encode()
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
                 "scheme": "http", "path": "/api/uploads", "raw_path": b"/api/uploads", "query_string": query,
                 "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
                 "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/octet-stream"),
                             (b"transfer-encoding", b"chunked"), (b"authorization", f"Token {api.token_key}".encode())]}

        async def go():
            communicator = ApplicationCommunicator(application, scope)
            for index in range(pieces):
                await communicator.send_input({"type": "http.request", "body": b"%05d\n" % index,
                                               "more_body": index < pieces - 1})
            start = await communicator.receive_output(timeout=30)
            content = await communicator.receive_output(timeout=30)
            return start["status"], json.loads(content["body"])

        return async_to_sync(go)()

    status, body = send("lines.txt", 2000)  # 12,000 bytes: past the body limit, inside the upload limit
    assert status == 201 and body["size"] == 12_000, body
    assert open(body["path"]).read().splitlines()[-1] == "01999"
    status, body = send("huge.txt", 10_000)  # 60,000 bytes
    assert status == 413, body
    assert [entry["name"] for entry in api.get("/api/files/user-data").json()["entries"]] == ["lines.txt"]
