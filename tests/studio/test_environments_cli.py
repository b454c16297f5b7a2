"""Environments in a project folder and from the shell: ``*.environment.yaml`` pulled, diffed and pushed with the
pipelines, ``validate --environment`` offline, ``promote``/``approve``/``run --environment`` against a live
studio; no file ever holds a secret's value."""
import io
import subprocess
import sys

import pytest

from engine.api import pipeline_to_text
from studio.cli import main
from studio.environments.models import Environment, EnvironmentRun
from tests.conftest import ROOT
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_VALUE = "hunter2-S3cr3t/+value"


def cli_for(live_server, user):
    key = token_client(user).token_key

    def run(*args, expect=0):
        out = io.StringIO()
        code = main(["--url", live_server.url, "--token", key, *args], out=out)
        assert code == expect, (args, out.getvalue())
        return out.getvalue()

    return run


def offline(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "studio", "--url", "http://127.0.0.1:9", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def parameterised() -> dict:
    definition = simple_pipeline(expression="x * ${param:factor}", name="scaled")
    definition["parallelism"] = "${param:parallelism}"
    return definition


def test_validate_offline_with_and_without_an_environment_file(tmp_path):
    (tmp_path / "scaled.pipeline.yaml").write_text(pipeline_to_text(parameterised()))
    (tmp_path / "prod.environment.yaml").write_text("name: prod\nparameters:\n  factor: 5\n  parallelism: 2\n")
    (tmp_path / "dev.environment.yaml").write_text("name: dev\nparameters:\n  factor: 'x +'\n")

    checked = offline("validate", str(tmp_path / "scaled.pipeline.yaml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr  # references are left to a run
    checked = offline("validate", str(tmp_path), "--environment", "prod")
    assert checked.returncode == 0 and checked.stdout.strip().endswith("scaled.pipeline.yaml: valid"), checked.stdout
    checked = offline("validate", str(tmp_path), "--environment", "dev")
    assert checked.returncode == 1
    assert "field parallelism: unknown parameter 'parallelism' (known: factor)" in checked.stdout
    assert "node double, field params.expression:" in checked.stdout
    missing = offline("validate", str(tmp_path), "--environment", "staging")
    assert missing.returncode == 2 and "no staging.environment.yaml" in missing.stderr


def test_pull_diff_push_carry_environments_and_never_a_secrets_value(live_server, user, tmp_path):
    cli = cli_for(live_server, user)
    api = token_client(user)
    api.post("/api/secrets", {"name": "pg", "value": SECRET_VALUE}, format="json")
    api.post("/api/environments", {"name": "prod", "position": 1, "parameters": {
        "factor": 5, "db": "postgresql://app:${secret:pg}@db/shop"}}, format="json")
    api.post("/api/pipelines", {"name": "scaled", "definition": parameterised()}, format="json")

    printed = cli("pull", str(tmp_path))
    text = (tmp_path / "prod.environment.yaml").read_text()
    assert "prod.environment.yaml: written" in printed
    assert "${secret:pg}" in text and SECRET_VALUE not in text
    for path in tmp_path.iterdir():
        if path.is_file():
            assert SECRET_VALUE not in path.read_text(), path

    (tmp_path / "prod.environment.yaml").write_text(text.replace("factor: 5", "factor: 7"))
    (tmp_path / "dev.environment.yaml").write_text("name: dev\nposition: 0\nparameters:\n  factor: 2\n")
    diffed = cli("diff", str(tmp_path), "--exit-code", expect=1)
    assert "${param:factor}: 5 -> 7" in diffed and "dev.environment.yaml: new environment" in diffed
    pushed = cli("push", str(tmp_path), "-m", "from CI")
    assert "created environment 'dev'" in pushed and "changed environment 'prod'" in pushed
    assert Environment.objects.get(owner=user, name="prod").parameters["factor"] == 7
    assert Environment.objects.get(owner=user, name="dev").parameters == {"factor": 2}
    assert "no change" in cli("diff", str(tmp_path / "prod.environment.yaml"))


def test_promote_approve_and_run_in_an_environment_from_the_shell(live_server, user, django_user_model,
                                                                  monkeypatch):
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)
    approver = django_user_model.objects.create_user("carol", password="carol-password")
    api = token_client(user)
    api.post("/api/environments", {"name": "dev", "position": 0, "parameters": {"factor": 2, "parallelism": 1}},
             format="json")
    api.post("/api/environments", {"name": "prod", "position": 1, "requires_approval": True,
                                   "approval_role": "operator", "parameters": {"factor": 5, "parallelism": 2}},
             format="json")
    pipeline = api.post("/api/pipelines", {"name": "scaled", "definition": parameterised()}, format="json").json()
    team = api.post("/api/teams", {"name": "payments"}, format="json").json()
    api.post(f"/api/teams/{team['id']}/members", {"username": "carol", "role": "operator"}, format="json")
    api.post(f"/api/pipelines/{pipeline['id']}/team", {"team": team["id"]}, format="json")
    cli, as_approver = cli_for(live_server, user), cli_for(live_server, approver)

    assert ": APPLIED" in cli("promote", str(pipeline["id"]), "--version", "1", "--to", "dev")
    asked = cli("promote", str(pipeline["id"]), "--version", "1", "--to", "prod", "-m", "release")
    assert "scaled v1 dev -> prod: PENDING" in asked and "waits for a user holding the operator role on the pipeline" in asked
    assert "${param:factor}: 2 -> 5" in asked
    promotion_id = asked.split()[1].rstrip(":")
    cli("approve", promotion_id, expect=1)  # the user who asked may not approve
    approved = as_approver("approve", promotion_id, "--comment", "ok")
    assert ": APPLIED" in approved and "decided by carol: ok" in approved

    run = cli("run", str(pipeline["id"]), "--environment", "prod")
    assert EnvironmentRun.objects.get().parameters == {"factor": 5, "parallelism": 2}
    assert '"status": "CREATED"' in run
    cli("promote", str(pipeline["id"]), "--version", "1", "--to", "nowhere", expect=2)
