"""``manage.py sign_snapshot``: a snapshot written before signing restores once an administrator signs it."""
import json
import pickle

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def old_savepoint(directory) -> str:
    """A savepoint as versions before signing wrote it: a state file, metadata without digests or signature."""
    directory.mkdir(parents=True)
    (directory / "gen-0.state").write_bytes(pickle.dumps(
        {"format": 1, "task": ["gen", 0], "channels": None, "operators": {"gen": {"keyed": None, "operator": None}}}))
    (directory / "_metadata").write_text(json.dumps({
        "format": 1, "checkpoint_id": 4, "kind": "savepoint", "vertices": {},
        "tasks": {"gen#0": {"path": "gen-0.state", "operators": {"gen": {}}}}}))
    return str(directory)


def test_an_old_savepoint_is_refused_until_an_administrator_signs_it(api, granted_tmp_path, capsys):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline()}, format="json").json()
    location = old_savepoint(granted_tmp_path / "savepoint-4")
    refused = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"restore_from": {"path": location}}, format="json")
    assert refused.status_code == 400 and "not signed" in refused.json()["detail"], refused.content
    assert "sign" in refused.json()["detail"]

    call_command("sign_snapshot", location, "--pipeline", str(pipeline["id"]))
    assert f"signed {location} as written by pipeline {pipeline['id']}" in capsys.readouterr().out
    metadata = json.loads((granted_tmp_path / "savepoint-4" / "_metadata").read_text())
    assert metadata["origin"]["pipeline"] == pipeline["id"] and metadata["tasks"]["gen#0"]["sha256"]
    restored = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"restore_from": {"path": location}}, format="json")
    assert restored.status_code == 201, restored.content

    with pytest.raises(CommandError, match="no pipeline 999"):
        call_command("sign_snapshot", location, "--pipeline", "999")
    with pytest.raises(CommandError, match="no completed checkpoint"):
        call_command("sign_snapshot", str(granted_tmp_path / "missing"), "--pipeline", str(pipeline["id"]))
