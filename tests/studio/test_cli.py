"""``python -m studio`` against a live studio: list, run, savepoint, stop, cancel, token."""
import io
import json
import os
import subprocess
import sys
import threading

import pytest

from studio.cli import main
from studio.models import SavepointRequest
from studio.runs.events import record_event, set_status
from tests.conftest import ROOT
from tests.support import simple_pipeline, token_client, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli(live_server, user, monkeypatch):
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)  # no driver: the test plays its part
    key = token_client(user).token_key

    def run(*args, expect=0, text=False):
        out = io.StringIO()
        code = main(["--url", live_server.url, "--token", key, *args], out=out)
        assert code == expect, (args, out.getvalue())
        if text:
            return out.getvalue()
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


def test_list_run_status_savepoint_stop_and_cancel(cli, pipeline, granted_tmp_path):
    assert [p["name"] for p in cli("pipelines")] == ["cli"]
    run = cli("run", str(pipeline["id"]), "--mode", "streaming")
    assert run["status"] == "CREATED" and run["pipeline"] == pipeline["id"]
    assert [r["id"] for r in cli("runs", "--pipeline", str(pipeline["id"]))] == [run["id"]]
    assert cli("runs", "--status", "RUNNING") == []
    set_status(run["id"], "RUNNING")
    assert cli("status", str(run["id"]), "--json")["status"] == "RUNNING"

    assert "request_id" in cli("savepoint", str(run["id"]), "--target-directory", str(granted_tmp_path))
    SavepointRequest.objects.all().delete()
    driver = answer_savepoints(run["id"], str(granted_tmp_path / "savepoint-1"))
    outcome = cli("savepoint", str(run["id"]), "--wait")
    driver.join()
    assert (outcome["status"], outcome["location"]) == ("COMPLETED", str(granted_tmp_path / "savepoint-1"))

    stopping = cli("stop", str(run["id"]), "--drain", "--no-wait")
    assert SavepointRequest.objects.get(request_id=stopping["request_id"]).drain is True
    assert cli("cancel", str(run["id"]))["status"] == "CANCELING"
    set_status(run["id"], "CANCELED")
    cli("cancel", str(run["id"]), expect=1)  # 409: it already ended


def test_status_prints_a_summary_by_default(cli, pipeline):
    run = cli("run", str(pipeline["id"]))
    set_status(run["id"], "RUNNING")
    set_status(run["id"], "RESTARTING", cause="task map#1 failed: boom\nTraceback ...")
    set_status(run["id"], "RUNNING")
    record_event(run["id"], "checkpoint", {"event": "completed", "id": 4, "trigger_timestamp": 1000,
                                           "state_size": 2048, "end_to_end_duration": 35})
    summary = cli("status", str(run["id"]), text=True)
    lines = summary.splitlines()
    assert lines[0] == f'run {run["id"]} · pipeline {pipeline["id"]} "cli" · v1 · streaming'
    assert lines[1].startswith("status: RUNNING · for ") and " since " in lines[1]
    assert lines[2] == "restarts: 1 · last cause: task map#1 failed: boom"
    assert lines[3].startswith("last checkpoint: #4 ") and "2048 bytes · 35 ms · 1 completed, 0 failed" in lines[3]
    set_status(run["id"], "FAILED", cause="task map#0 failed: again")
    failed = cli("status", str(run["id"]), text=True, expect=1)
    assert "status: FAILED · ran " in failed and failed.rstrip().endswith("failure: task map#0 failed: again")


def test_token_without_a_terminal_reads_a_file_or_stdin_or_says_how(live_server, user, tmp_path):
    """The README's token command in a script: no terminal to prompt on, so a file or stdin, or exit 2."""
    base = [sys.executable, "-m", "studio", "--url", live_server.url, "token", "--username", "alice"]
    env = {key: value for key, value in os.environ.items() if key != "STUDIO_PASSWORD"}

    def run(*args, stdin=""):
        return subprocess.run([*base, *args], cwd=ROOT, env=env, input=stdin, capture_output=True, text=True,
                              timeout=60)

    refused = run()
    assert refused.returncode == 2 and "--password-file" in refused.stderr and "STUDIO_PASSWORD" in refused.stderr
    assert "Traceback" not in refused.stderr
    password_file = tmp_path / "password"
    password_file.write_text("alice-password\n")
    from_file = run("--password-file", str(password_file))
    assert from_file.returncode == 0, from_file.stderr
    assert len(json.loads(from_file.stdout)["key"]) == 40
    from_stdin = run("--password-stdin", "--name", "piped", stdin="alice-password\n")
    assert from_stdin.returncode == 0 and json.loads(from_stdin.stdout)["name"] == "piped"
    wrong = run("--password-stdin", stdin="nope\n")
    assert wrong.returncode == 1 and "error: HTTP 4" in wrong.stderr


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
