"""A file source over a path that matches no file is a validation warning in the editor, before any run."""
import pytest

from studio.source_files import matches_a_file

pytestmark = pytest.mark.django_db


def file_pipeline(path: str) -> dict:
    return {"format": 1, "name": "files", "mode": "batch",
            "nodes": [{"id": "lines", "type": "source.file", "params": {"path": path}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "lines", "to": "out"}]}


def validate(api, definition: dict) -> dict:
    response = api.post("/api/pipelines/validate", {"definition": definition}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_file_source_matching_no_file_is_a_warning_naming_node_and_field(api, granted_tmp_path):
    result = validate(api, file_pipeline(str(granted_tmp_path / "typo-*.csv")))
    assert result["valid"] is True and result["errors"] == []
    assert result["warnings"] == [{"node": "lines", "edge": None, "field": "params.path", "message": (
        f"no file matches {granted_tmp_path / 'typo-*.csv'} (yet): a run would fail unless files arrive there "
        "before it starts")}]


def test_a_file_source_with_files_has_no_warning(api, granted_tmp_path):
    (granted_tmp_path / "in-1.csv").write_text("1\n")
    assert validate(api, file_pipeline(str(granted_tmp_path / "in-*.csv")))["warnings"] == []
    assert validate(api, file_pipeline(str(granted_tmp_path)))["warnings"] == []


def test_a_definition_with_errors_lists_them_and_no_warnings(api, granted_tmp_path):
    definition = file_pipeline(str(granted_tmp_path / "missing.csv"))
    definition["edges"] = []
    result = validate(api, definition)
    assert result["valid"] is False and result["errors"] and result["warnings"] == []


def test_matching_follows_the_file_source_rules(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / ".part-0.tmp").write_text("x")
    (tmp_path / "hidden" / "_SUCCESS").write_text("")
    (tmp_path / "nested" / "day=1").mkdir(parents=True)
    (tmp_path / "nested" / "day=1" / "part-0.jsonl").write_text("1\n")
    assert not matches_a_file(str(tmp_path / "empty"))
    assert not matches_a_file(str(tmp_path / "hidden")), "temporary and marker files are not data"
    assert not matches_a_file(str(tmp_path / "missing.csv"))
    assert matches_a_file(str(tmp_path / "nested"))
    assert matches_a_file(str(tmp_path / "nested" / "*" / "*.jsonl"))
    assert matches_a_file(str(tmp_path / "nested" / "day=1" / "part-0.jsonl"))
    assert not matches_a_file(str(tmp_path / "nested" / "*")), "a glob reads the files it matches, not directories"


def test_a_path_that_makes_the_file_check_explode_is_stopped_at_the_validation_budget(api, granted_tmp_path,
                                                                                       settings):
    """Twelve ``**`` over seventeen directories eight deep: each ``**`` walks every directory below the
    previous one again (minutes of work). The check runs in the budgeted worker with validation and is
    stopped at the one budget, as a warning naming node and field."""
    settings.STUDIO_VALIDATION_BUDGET_S = 1.0
    level = granted_tmp_path
    for depth in range(8):
        level = level / f"level-{depth}"
        level.mkdir()
        (level.parent / f"side-{depth}").mkdir()
    path = str(granted_tmp_path) + "/**" * 12 + "/nothing.csv"
    result = validate(api, file_pipeline(path))
    assert result["valid"] is True and result["errors"] == []
    assert [(warning["node"], warning["field"]) for warning in result["warnings"]] == [("lines", "params.path")]
    assert "longer than the 1 s validation budget" in result["warnings"][0]["message"]
    assert api.get("/api/health").status_code == 200
