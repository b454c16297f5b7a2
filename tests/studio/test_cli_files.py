"""Pipelines as files with ``python -m studio``: validate offline, pull, diff and push against a live studio.

The story a team lives: pull the studio's pipelines into a folder kept in Git, move a node
(a layout change, which ``diff`` says is no logic change), change an expression (which ``diff``
shows and ``push`` saves as a new version), keep the comments written in the file, and never
lose a change silently on either side."""
import io
import subprocess
import sys

import pytest

from engine.api import pipeline_from_text, pipeline_to_text
from studio.cli import main
from studio.models import Pipeline
from tests.conftest import ROOT
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli(live_server, user):
    key = token_client(user).token_key

    def run(*args, expect=0):
        out = io.StringIO()
        code = main(["--url", live_server.url, "--token", key, *args], out=out)
        assert code == expect, (args, out.getvalue())
        return out.getvalue()

    return run


@pytest.fixture
def saved(user):
    definition = simple_pipeline(name="orders by minute")
    definition["nodes"][0]["ui"] = {"x": 0, "y": 0}
    answer = token_client(user).post("/api/pipelines", {"name": "orders by minute", "definition": definition},
                                     format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def offline(*args) -> subprocess.CompletedProcess:
    """``python -m studio`` with no studio anywhere: the URL points at a closed port."""
    return subprocess.run([sys.executable, "-m", "studio", "--url", "http://127.0.0.1:9", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_validate_needs_no_studio_and_names_the_node_and_the_line(tmp_path):
    good = simple_pipeline()
    (tmp_path / "good.pipeline.yaml").write_text(pipeline_to_text(good))
    bad = simple_pipeline(expression="x +")
    (tmp_path / "bad.pipeline.yaml").write_text(pipeline_to_text(bad))
    (tmp_path / "broken.pipeline.yaml").write_text("format: 1\nnodes: [\n")

    checked = offline("validate", str(tmp_path / "good.pipeline.yaml"))
    assert checked.returncode == 0 and checked.stdout.strip().endswith("good.pipeline.yaml: valid")
    checked = offline("validate", str(tmp_path))
    assert checked.returncode == 1
    assert "bad.pipeline.yaml: node double, field params.expression:" in checked.stdout
    assert "broken.pipeline.yaml: line 3:" in checked.stdout
    missing = offline("validate", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_pull_move_a_node_diff_change_logic_push(cli, saved, tmp_path):
    assert "written from v1" in cli("pull", str(tmp_path))
    path = tmp_path / "orders-by-minute.pipeline.yaml"
    assert pipeline_from_text(path.read_text()) == Pipeline.objects.get(pk=saved["id"]).latest_version().definition

    moved = pipeline_from_text(path.read_text())
    moved["nodes"][0]["ui"] = {"x": 240, "y": 80}
    path.write_text(pipeline_to_text(moved, existing=path.read_text()))
    assert "layout only, no logic change against v1" in cli("diff", str(tmp_path), "--exit-code")

    text = path.read_text().replace("expression: x * 2", "# tripled since the price change\n    expression: x * 3")
    path.write_text(text)
    shown = cli("diff", str(path), "--exit-code", expect=1)
    assert "-    expression: x * 2" in shown and "+    expression: x * 3" in shown and "ui" not in shown

    assert "saved as v2" in cli("push", str(tmp_path), "-m", "triple")
    version = Pipeline.objects.get(pk=saved["id"]).latest_version()
    assert (version.number, version.message) == (2, "triple")
    assert version.definition["nodes"][1]["params"]["expression"] == "x * 3"
    assert version.definition["nodes"][0]["ui"] == {"x": 240, "y": 80}
    assert "unchanged (v2)" in cli("push", str(tmp_path))
    assert "same as v2" in cli("diff", str(tmp_path))


def test_a_pull_keeps_the_files_comments_and_never_overwrites_unpushed_logic(cli, saved, user, tmp_path):
    cli("pull", str(tmp_path))
    path = tmp_path / "orders-by-minute.pipeline.yaml"
    path.write_text(path.read_text().replace("parallelism: 1", "parallelism: 1  # raise in prod"))
    definition = {**simple_pipeline(name="orders by minute", expression="x * 5")}
    token_client(user).put(f"/api/pipelines/{saved['id']}", {"definition": definition}, format="json")

    assert "written from v2" in cli("pull", str(tmp_path))
    assert "parallelism: 1  # raise in prod" in path.read_text() and "expression: x * 5" in path.read_text()

    path.write_text(path.read_text().replace("x * 5", "x * 6"))
    refused = cli("pull", str(tmp_path), expect=1)
    assert "not written, it holds changes not pushed" in refused
    assert "x * 6" in path.read_text()
    cli("pull", str(tmp_path), "--force")
    assert "x * 5" in path.read_text() and "# raise in prod" in path.read_text()


def test_push_refuses_a_file_edited_from_a_version_the_studio_has_moved_past(cli, saved, user, tmp_path):
    cli("pull", str(tmp_path))
    path = tmp_path / "orders-by-minute.pipeline.yaml"
    token_client(user).put(f"/api/pipelines/{saved['id']}",
                           {"definition": simple_pipeline(name="orders by minute", expression="x * 7")}, format="json")
    path.write_text(path.read_text().replace("x * 2", "x * 3"))
    refused = cli("push", str(tmp_path), expect=1)
    assert "edited from v1 and the studio has v2 since" in refused
    assert Pipeline.objects.get(pk=saved["id"]).latest_version().number == 2
    assert "saved as v3" in cli("push", str(tmp_path), "--force")
    assert "x * 7" in str(Pipeline.objects.get(pk=saved["id"]).versions.get(number=2).definition)


def test_push_creates_what_is_new_and_refuses_invalid_files_and_ambiguous_names(cli, saved, user, tmp_path):
    (tmp_path / "fresh.pipeline.yaml").write_text(pipeline_to_text(simple_pipeline(name="fresh")))
    assert "new pipeline 'fresh'" in cli("diff", str(tmp_path / "fresh.pipeline.yaml"))
    assert "created pipeline" in cli("push", str(tmp_path / "fresh.pipeline.yaml"))
    assert Pipeline.objects.filter(name="fresh").count() == 1

    (tmp_path / "bad.pipeline.yaml").write_text(pipeline_to_text(simple_pipeline(name="fresh", expression="x +")))
    refused = cli("push", str(tmp_path), expect=1)
    assert "nothing pushed" in refused and Pipeline.objects.get(name="fresh").versions.count() == 1

    token_client(user).post("/api/pipelines", {"name": "fresh", "definition": simple_pipeline(name="fresh")},
                            format="json")
    ambiguous = cli("push", str(tmp_path / "fresh.pipeline.yaml"), expect=1)
    assert "several pipelines are named 'fresh'" in ambiguous


def test_pull_writes_only_what_the_user_may_see(cli, saved, other_user, tmp_path):
    token_client(other_user).post("/api/pipelines", {"name": "private", "definition": simple_pipeline(name="private")},
                                  format="json")
    cli("pull", str(tmp_path))
    assert sorted(p.name for p in tmp_path.glob("*.pipeline.yaml")) == ["orders-by-minute.pipeline.yaml"]
