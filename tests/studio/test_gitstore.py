"""A pipeline kept in Git: a bare repository on disk, and a person working in a clone of it with the
real ``git`` binary, as a team does beside the studio.

Saving commits; a commit pushed outside comes in as a version; a change on both sides is shown
and written nowhere until a side is chosen; the Git history equals the studio's versions; the
repository is input, checked against the user's grants."""
import subprocess
from pathlib import Path

import pytest

from engine.api import pipeline_from_text, pipeline_to_text
from studio.gitstore.models import GitBinding
from studio.models import Pipeline
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db(transaction=True)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def origin(granted_tmp_path, settings, tmp_path_factory) -> Path:
    settings.STUDIO_GIT_MIRRORS = str(tmp_path_factory.mktemp("mirrors"))
    bare = granted_tmp_path / "pipelines.git"
    git(granted_tmp_path, "init", "--bare", "-b", "main", str(bare))
    return bare


@pytest.fixture
def api(user):
    return token_client(user)


@pytest.fixture
def pipeline(api):
    created = api.post("/api/pipelines", {"name": "orders", "definition": simple_pipeline(name="orders"),
                                          "message": "first"}, format="json")
    assert created.status_code == 201, created.content
    api.put(f"/api/pipelines/{created.json()['id']}",
            {"definition": simple_pipeline(name="orders", expression="x * 3"), "message": "triple"}, format="json")
    return Pipeline.objects.get(pk=created.json()["id"])


def latest(pipeline: Pipeline):
    """The pipeline's newest version, read again (a model instance remembers the one it saw)."""
    return Pipeline.objects.get(pk=pipeline.pk).latest_version()


def clone(origin: Path, where: Path) -> Path:
    git(where.parent, "clone", "-q", str(origin), str(where))
    return where


def test_binding_writes_the_history_then_each_save_is_a_commit(api, pipeline, origin, tmp_path):
    bound = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)}, format="json")
    assert bound.status_code == 201, bound.content
    assert bound.json()["steps"][0].endswith("from v1") and bound.json()["steps"][1].endswith("from v2")

    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 4"),
                                              "message": "quadruple"}, format="json")
    work = clone(origin, tmp_path / "work")
    assert git(work, "log", "--format=%s|%an").splitlines() == ["quadruple|alice", "triple|alice", "first|alice"]
    on_disk = pipeline_from_text((work / "orders.pipeline.yaml").read_text())
    assert on_disk == {**latest(pipeline).definition, "name": "orders"}
    assert GitBinding.objects.get().synced_version == 3


def test_a_commit_pushed_outside_comes_in_as_a_version_with_its_comments_kept(api, pipeline, origin, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    path.write_text(path.read_text().replace("expression: x * 3", "# reviewed in PR 12\n    expression: x * 5"))
    git(work, "commit", "-qam", "five times")
    git(work, "push", "-q", "origin", "main")

    pulled = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert pulled.status_code == 200, pulled.content
    newest = latest(pipeline)
    assert newest.number == 3 and newest.definition["nodes"][1]["params"]["expression"] == "x * 5"
    assert newest.message.startswith("five times (git ") and "Ada" in newest.message
    assert api.post(f"/api/git-bindings/{binding['id']}/pull").json()["steps"] == ["nothing new in Git"]

    api.put(f"/api/pipelines/{pipeline.id}", {"definition": {**newest.definition, "parallelism": 2},
                                              "message": "wider"}, format="json")
    git(work, "pull", "-q")
    assert "# reviewed in PR 12" in path.read_text() and "parallelism: 2" in path.read_text()
    assert len(git(work, "log", "--format=%H").splitlines()) == pipeline.versions.count() == 4


def test_a_change_on_both_sides_is_shown_and_written_nowhere_until_a_side_is_taken(api, pipeline, origin, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    path.write_text(path.read_text().replace("x * 3", "x * 6"))
    git(work, "commit", "-qam", "six in git")
    git(work, "push", "-q", "origin", "main")
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 7"),
                                              "message": "seven in the studio"}, format="json")

    state = GitBinding.objects.get()  # a diff from Git's file to the studio's, as the comparison shows it
    assert "-    expression: x * 6" in state.conflict and "+    expression: x * 7" in state.conflict
    git(work, "pull", "-q")
    assert "x * 6" in path.read_text()  # the studio's save was not committed over Git's change

    refused = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert refused.status_code == 409 and "x * 6" in refused.json()["detail"]
    assert latest(pipeline).definition["nodes"][1]["params"]["expression"] == "x * 7"

    taken = api.post(f"/api/git-bindings/{binding['id']}/resolve", {"take": "git"}, format="json")
    assert taken.status_code == 200, taken.content
    assert latest(pipeline).definition["nodes"][1]["params"]["expression"] == "x * 6"
    assert [v.definition["nodes"][1]["params"]["expression"] for v in pipeline.versions.order_by("number")] \
        == ["x * 2", "x * 3", "x * 7", "x * 6"]  # the studio's side stays in its history
    assert GitBinding.objects.get().conflict == ""


def test_the_same_change_on_both_sides_is_no_conflict(api, pipeline, origin, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    path.write_text(path.read_text().replace("expression: x * 3", "# agreed in review\n    expression: x * 6"))
    git(work, "commit", "-qam", "six in git")
    git(work, "push", "-q", "origin", "main")
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 6"),
                                              "message": "six in the studio"}, format="json")

    state = GitBinding.objects.get()
    assert state.conflict == "" and state.synced_version == 3
    git(work, "pull", "-q")
    assert git(work, "log", "--format=%s", "-2").splitlines() == ["six in the studio", "six in git"]
    assert "# agreed in review" in path.read_text()  # committed on top of Git's, its comment kept
    compared = api.get(f"/api/git-bindings/{binding['id']}/compare").json()
    assert compared["diff"] == "" and not compared["logic_changed"]


def test_a_pull_finding_the_studios_own_change_in_git_agrees_instead_of_conflicting(api, pipeline, origin, user,
                                                                                     tmp_path):
    from studio.models import LocationGrant

    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    grants = list(LocationGrant.objects.filter(user=user))
    LocationGrant.objects.filter(user=user).delete()  # the save cannot be committed: the studio moves alone
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 6"),
                                              "message": "six in the studio"}, format="json")
    LocationGrant.objects.bulk_create(grants)
    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    path.write_text(path.read_text().replace("x * 3", "x * 6"))
    git(work, "commit", "-qam", "six in git")
    git(work, "push", "-q", "origin", "main")

    pulled = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert pulled.status_code == 200, pulled.content
    assert pulled.json()["steps"][0].endswith("holds what v3 holds: nothing to bring in")
    state = GitBinding.objects.get()
    assert state.conflict == "" and state.synced_version == 3
    assert state.synced_commit == git(work, "rev-parse", "HEAD").strip() and pipeline.versions.count() == 3


def test_an_invalid_commit_is_refused_naming_the_node_and_nothing_is_saved(api, pipeline, origin, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    path.write_text(path.read_text().replace("x * 3", "x +"))
    git(work, "commit", "-qam", "broken")
    git(work, "push", "-q", "origin", "main")
    refused = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert refused.status_code == 400 and "node double" in str(refused.json())
    assert pipeline.versions.count() == 2


def test_the_repository_is_checked_against_the_users_grants(api, pipeline, other_user, tmp_path, settings):
    settings.STUDIO_GIT_MIRRORS = str(tmp_path / "mirrors")
    elsewhere = tmp_path / "not-granted.git"
    git(tmp_path, "init", "--bare", "-b", "main", str(elsewhere))
    refused = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(elsewhere)}, format="json")
    assert refused.status_code == 400 and "outside the locations granted" in str(refused.json())
    for address in ("file:///etc", "ssh://host/repo.git", "git@host:repo.git", "0" * 300):
        answer = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": address}, format="json")
        assert answer.status_code == 400, address
    assert not GitBinding.objects.exists()
    stranger = token_client(other_user).post("/api/git-bindings", {"pipeline": pipeline.id,
                                                                    "repository": str(elsewhere)}, format="json")
    assert stranger.status_code == 404
    bad_path = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(elsewhere),
                                              "path": "../escape.yaml"}, format="json")
    assert bad_path.status_code == 400


def test_a_grant_taken_away_stops_the_commits(api, pipeline, origin, user, tmp_path):
    from studio.models import LocationGrant

    api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)}, format="json")
    LocationGrant.objects.filter(user=user).delete()
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 9"),
                                              "message": "after revocation"}, format="json")
    work = clone(origin, tmp_path / "work")
    assert "after revocation" not in git(work, "log", "--format=%s")
    assert "not committed" in GitBinding.objects.get().last_error


def test_a_repository_reading_another_users_objects_is_refused(api, pipeline, origin, other_user, grant, tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    grant(other_user, theirs)
    victim = theirs / "private.git"
    git(theirs, "init", "--bare", "-b", "main", str(victim))
    linked = origin.parent / "linked.git"
    git(origin.parent, "init", "--bare", "-b", "main", str(linked))
    (linked / "refs" / "heads").rmdir()
    (linked / "refs" / "heads").symlink_to(victim / "refs" / "heads")
    refused = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(linked)}, format="json")
    assert refused.status_code == 400 and "symbolic link" in str(refused.json())

    borrowing = origin.parent / "borrowing.git"
    git(origin.parent, "init", "--bare", "-b", "main", str(borrowing))
    (borrowing / "objects" / "info" / "alternates").write_text(str(victim / "objects") + "\n")
    refused = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(borrowing)}, format="json")
    assert refused.status_code == 400 and "borrows objects" in str(refused.json())
    assert not GitBinding.objects.exists()


def test_the_file_view_and_the_comparison_with_git_tell_layout_from_logic(api, pipeline, origin, tmp_path):
    file = api.get(f"/api/pipelines/{pipeline.id}/file").json()
    assert file["name"] == "orders.pipeline.yaml" and file["version"] == 2
    assert pipeline_from_text(file["text"]) == {**latest(pipeline).definition, "name": "orders"}
    assert "x * 2" in api.get(f"/api/pipelines/{pipeline.id}/file", {"version": 1}).json()["text"]
    assert api.get(f"/api/pipelines/{pipeline.id}/file", {"version": 9}).status_code == 404

    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    same = api.get(f"/api/git-bindings/{binding['id']}/compare").json()
    assert same["diff"] == "" and not same["logic_changed"] and same["git_text"] == same["studio_text"]

    work = clone(origin, tmp_path / "work")
    path = work / "orders.pipeline.yaml"
    moved = pipeline_from_text(path.read_text())
    moved["nodes"][0]["ui"] = {"x": 999, "y": 7}
    path.write_text(pipeline_to_text(moved, existing=path.read_text()))
    git(work, "commit", "-qam", "moved a node")
    git(work, "push", "-q", "origin", "main")
    layout = api.get(f"/api/git-bindings/{binding['id']}/compare").json()
    assert "-    gen: {x: 999, y: 7}" in layout["diff"] and not layout["logic_changed"] and layout["version"] == 2, layout["diff"]

    path.write_text(path.read_text().replace("x * 3", "x * 8"))
    git(work, "commit", "-qam", "eight")
    git(work, "push", "-q", "origin", "main")
    logic = api.get(f"/api/git-bindings/{binding['id']}/compare").json()
    assert logic["logic_changed"] and "-    expression: x * 8" in logic["diff"] and "+    expression: x * 3" in logic["diff"]
    assert logic["commit"] == git(work, "rev-parse", "HEAD").strip()


def test_a_teams_viewer_reads_the_binding_and_its_file_but_pulls_nothing(api, pipeline, origin, user, grant,
                                                                         django_user_model):
    from studio.models import Team, TeamMembership

    team = Team.objects.create(name="core")
    TeamMembership.objects.create(team=team, user=user, role="admin")
    assert api.post(f"/api/pipelines/{pipeline.id}/team", {"team": team.pk}, format="json").status_code == 200
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    vera, mallory = (django_user_model.objects.create_user(name, password="pw") for name in ("vera", "mallory"))
    TeamMembership.objects.create(team=team, user=vera, role="viewer")
    grant(vera, str(origin.parent), write=False)
    as_vera, as_mallory = token_client(vera), token_client(mallory)

    assert [b["id"] for b in as_vera.get("/api/git-bindings").json()] == [binding["id"]]
    assert as_vera.get(f"/api/git-bindings/{binding['id']}/compare").status_code == 200
    assert as_vera.get(f"/api/pipelines/{pipeline.id}/file").status_code == 200
    refused = [as_vera.post(f"/api/git-bindings/{binding['id']}/pull"),
               as_vera.post(f"/api/git-bindings/{binding['id']}/resolve", {"take": "git"}, format="json"),
               as_vera.delete(f"/api/git-bindings/{binding['id']}")]
    assert [answer.status_code for answer in refused] == [403, 403, 403]
    hidden = [as_mallory.get(f"/api/git-bindings/{binding['id']}"),
              as_mallory.get(f"/api/git-bindings/{binding['id']}/compare"),
              as_mallory.post(f"/api/git-bindings/{binding['id']}/pull"),
              as_mallory.get(f"/api/pipelines/{pipeline.id}/file")]
    assert [answer.status_code for answer in hidden] == [404, 404, 404, 404]
    assert as_mallory.get("/api/git-bindings").json() == []
    TeamMembership.objects.filter(user=vera).delete()
    assert as_vera.get(f"/api/git-bindings/{binding['id']}/compare").status_code == 404


# --- the pipeline's environment files ------------------------------------------------------------------

SECRET = "S3cr3t/v@lue+1"


@pytest.fixture
def environments(api):
    assert api.post("/api/secrets", {"name": "pg", "value": SECRET}, format="json").status_code == 201
    dev = api.post("/api/environments", {"name": "dev", "parameters": {
        "out_dir": "/data/dev", "db": "postgresql://app:${secret:pg}@db.dev/shop"}}, format="json")
    prod = api.post("/api/environments", {"name": "prod", "position": 1, "parameters": {"out_dir": "/data/prod"}},
                    format="json")
    assert dev.status_code == prod.status_code == 201, (dev.content, prod.content)
    return {"dev": dev.json(), "prod": prod.json()}


def every_text_in(work: Path) -> str:
    """Every blob of every commit, every commit message: the whole repository as text."""
    return git(work, "log", "--all", "-p", "--format=%H %an %s %b")


def test_environment_files_travel_with_the_pipeline_naming_secrets_never_holding_them(api, pipeline, origin,
                                                                                    environments, tmp_path):
    import base64
    from urllib.parse import quote

    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    dev = (work / "dev.environment.yaml").read_text()
    assert "db: postgresql://app:${secret:pg}@db.dev/shop" in dev and "out_dir: /data/dev" in dev
    assert "out_dir: /data/prod" in (work / "prod.environment.yaml").read_text()
    everything = every_text_in(work)
    for form in (SECRET, base64.b64encode(SECRET.encode()).decode(), quote(SECRET, safe=""), quote(SECRET)):
        assert form not in everything

    # changed in the studio: committed with the next saved version
    api.patch(f"/api/environments/{environments['prod']['id']}", {"parameters": {"out_dir": "/data/prod2"}},
              format="json")
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 4"),
                                              "message": "quadruple"}, format="json")
    git(work, "pull", "-q")
    assert "out_dir: /data/prod2" in (work / "prod.environment.yaml").read_text()

    # changed in Git: its parameters come in with the pull; who approves stays the studio's to say
    path = work / "dev.environment.yaml"
    path.write_text(path.read_text().replace("/data/dev", "/data/dev2").replace("requires_approval: false",
                                                                                 "requires_approval: true"))
    (work / "staging.environment.yaml").write_text("name: staging\nparameters:\n  out_dir: /x\n")
    git(work, "add", ".")
    git(work, "commit", "-qm", "dev writes elsewhere")
    git(work, "push", "-q", "origin", "main")
    pulled = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert pulled.status_code == 200, pulled.content
    assert "environment dev: out_dir from Git (requires_approval changed in the studio only, not by a commit)" \
        in pulled.json()["steps"]
    assert any("no environment 'staging' of yours" in step and step.endswith("left alone")
               for step in pulled.json()["steps"])
    dev_now = api.get(f"/api/environments/{environments['dev']['id']}").json()
    assert dev_now["parameters"]["out_dir"] == "/data/dev2" and dev_now["requires_approval"] is False
    assert dev_now["parameters"]["db"] == "postgresql://app:${secret:pg}@db.dev/shop"
    assert pipeline.versions.count() == 3  # the pipeline's file did not change


def test_an_invalid_environment_file_refuses_the_whole_pull(api, pipeline, origin, environments, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    (work / "orders.pipeline.yaml").write_text((work / "orders.pipeline.yaml").read_text().replace("x * 3", "x * 5"))
    (work / "dev.environment.yaml").write_text("name: dev\nparameters:\n  out_dir: [1, 2]\n")
    git(work, "commit", "-qam", "five, and a broken dev")
    git(work, "push", "-q", "origin", "main")
    refused = api.post(f"/api/git-bindings/{binding['id']}/pull")
    assert refused.status_code == 400, refused.content
    assert "dev.environment.yaml" in str(refused.json()) and "parameters.out_dir" in str(refused.json())
    assert pipeline.versions.count() == 2  # nothing of the commit came in
    assert api.get(f"/api/environments/{environments['dev']['id']}").json()["parameters"]["out_dir"] == "/data/dev"


def test_an_environment_changed_on_both_sides_keeps_the_studios_and_git_is_not_written_over(api, pipeline, origin,
                                                                                          environments, tmp_path):
    binding = api.post("/api/git-bindings", {"pipeline": pipeline.id, "repository": str(origin)},
                       format="json").json()["binding"]
    work = clone(origin, tmp_path / "work")
    path = work / "dev.environment.yaml"
    path.write_text(path.read_text().replace("/data/dev", "/data/from-git"))
    git(work, "commit", "-qam", "dev from git")
    git(work, "push", "-q", "origin", "main")
    # a save before the pull: the pipeline is committed, dev's file in Git is not written over
    api.put(f"/api/pipelines/{pipeline.id}", {"definition": simple_pipeline(name="orders", expression="x * 4"),
                                              "message": "quadruple"}, format="json")
    git(work, "pull", "-q")
    assert "/data/from-git" in path.read_text() and "x * 4" in (work / "orders.pipeline.yaml").read_text()

    api.patch(f"/api/environments/{environments['dev']['id']}",
              {"parameters": {**environments["dev"]["parameters"], "out_dir": "/data/from-studio"}}, format="json")
    pulled = api.post(f"/api/git-bindings/{binding['id']}/pull").json()["steps"]
    assert any(step.startswith("dev.environment.yaml: changed in the studio and in Git") for step in pulled), pulled
    assert api.get(f"/api/environments/{environments['dev']['id']}").json()["parameters"]["out_dir"] \
        == "/data/from-studio"
