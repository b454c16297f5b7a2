"""``python -m studio`` against a live studio: list, run, savepoint, stop, cancel, token."""
import io
import json
import subprocess
import sys
import threading

import pytest

from studio.cli import main
from studio.models import SavepointRequest
from studio.realtime.events import record_event, set_status
from tests.conftest import ROOT
from tests.support import simple_pipeline, token_client, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli(live_server, user, monkeypatch):
    from studio.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)  # no driver: the test plays its part
    key = token_client(user).token_key

    def run(*args, expect=0):
        out = io.StringIO()
        code = main(["--url", live_server.url, "--token", key, *args], out=out)
        assert code == expect, (args, out.getvalue())
        return json.loads(out.getvalue()) if out.getvalue() else None

    return run


@pytest.fixture
def pipeline(user):
    client = token_client(user)
    return client.post("/api/pipelines", {"name": "cli", "definition": simple_pipeline()}, format="json").json()


def answer_savepoints(run_id: int, location: str) -> threading.Thread:
    """Play the driver: complete the first savepoint request of the run once it appears."""
    def driver():
        request = wait_until(lambda: SavepointRequest.objects.filter(run_id=run_id).first(), 10, "a request")
        record_event(run_id, "savepoint", {"request_id": request.request_id, "status": "COMPLETED",
                                           "location": location})

    thread = threading.Thread(target=driver)
    thread.start()
    return thread


def test_list_run_status_savepoint_stop_and_cancel(cli, pipeline, tmp_path):
    assert [p["name"] for p in cli("pipelines")] == ["cli"]
    run = cli("run", str(pipeline["id"]), "--mode", "streaming")
    assert run["status"] == "CREATED" and run["pipeline"] == pipeline["id"]
    assert [r["id"] for r in cli("runs", "--pipeline", str(pipeline["id"]))] == [run["id"]]
    assert cli("runs", "--status", "RUNNING") == []
    set_status(run["id"], "RUNNING")
    assert cli("status", str(run["id"]))["status"] == "RUNNING"

    assert "request_id" in cli("savepoint", str(run["id"]), "--target-directory", str(tmp_path))
    SavepointRequest.objects.all().delete()
    driver = answer_savepoints(run["id"], str(tmp_path / "savepoint-1"))
    outcome = cli("savepoint", str(run["id"]), "--wait")
    driver.join()
    assert (outcome["status"], outcome["location"]) == ("COMPLETED", str(tmp_path / "savepoint-1"))

    stopping = cli("stop", str(run["id"]), "--drain", "--no-wait")
    assert SavepointRequest.objects.get(request_id=stopping["request_id"]).drain is True
    assert cli("cancel", str(run["id"]))["status"] == "CANCELING"
    set_status(run["id"], "CANCELED")
    cli("cancel", str(run["id"]), expect=1)  # 409: it already ended


def test_token_by_password_and_refusals(cli, live_server, user, monkeypatch, capsys):
    monkeypatch.setenv("STUDIO_PASSWORD", "alice-password")
    created = cli("token", "--username", "alice", "--name", "ci")
    assert created["name"] == "ci" and len(created["key"]) == 40
    out = io.StringIO()
    assert main(["--url", live_server.url, "--token", created["key"], "pipelines"], out=out) == 0
    assert main(["--url", live_server.url, "--token", "wrong", "pipelines"], out=io.StringIO()) == 1
    assert "Invalid or revoked token" in capsys.readouterr().err
    cli("run", "999999", expect=1)


def test_python_dash_m_studio_is_the_entry_point():
    result = subprocess.run([sys.executable, "-m", "studio", "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and "savepoint" in result.stdout and "stop" in result.stdout
