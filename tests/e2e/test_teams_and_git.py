"""Teams and Git in Chromium, as two people use them.

The admin starts a team, adds bob as a viewer, moves a pipeline into it and gives the team a connection
profile: bob sees both, cannot save or run the pipeline and the editor says why; made an editor, bob saves
a version; removed, bob loses both at his next request. Then the admin keeps the pipeline in a bare Git repository: saving commits (message and
author), a commit pushed outside is pulled in as a version, a change on both sides is a conflict shown
with its diff and resolved by taking one side, and the file page shows the YAML and its diff with Git.

Screenshots are in ``test-results/teams-and-git/``.
"""
from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, log_in, make_user
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def look(page, artifacts, name: str) -> None:
    folder = artifacts / "teams-and-git"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def sign_in(browser, live_studio: str, username: str, password: str):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    log_in(context, live_studio, password, username)
    return context, context.new_page()


def open_editor(page, live_studio: str, pipeline_id: int) -> None:
    page.goto(f"{live_studio}/pipelines/{pipeline_id}")
    expect(page.get_by_test_id("node-double")).to_be_visible()


def test_a_team_viewer_sees_an_editor_saves_a_removed_member_loses_it(live_studio, page, browser, artifacts,
                                                                      tmp_path_factory):
    suffix = uuid.uuid4().hex[:6]
    bob_name = f"bob{suffix}"
    make_user(tmp_path_factory, bob_name, "bob-password")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": f"orders-{suffix}", "definition": simple_pipeline(name=f"orders-{suffix}")})

    # the admin starts a team and adds bob as a viewer
    page.goto(f"{live_studio}/teams")
    page.get_by_test_id("team-name").fill(f"payments-{suffix}")
    page.get_by_test_id("team-create").click()
    detail = page.get_by_test_id("team-detail")
    expect(detail.get_by_test_id("team-my-role")).to_have_text("admin")
    page.get_by_test_id("member-username").fill(bob_name)
    page.get_by_test_id("member-role").select_option("viewer")
    page.get_by_test_id("member-add").click()
    expect(page.get_by_test_id(f"member-{bob_name}")).to_contain_text("viewer")
    team_url = page.url

    # ... and moves the pipeline into it from the editor's Access link
    open_editor(page, live_studio, pipeline["id"])
    page.get_by_test_id("editor-aside-access").click()
    page.get_by_test_id("pipeline-move-target").select_option(label=f"team payments-{suffix}")
    page.get_by_test_id("pipeline-move").click()
    expect(page.get_by_test_id("pipeline-owned-by")).to_contain_text(f"Team payments-{suffix}")
    look(page, artifacts, "1-moved-into-the-team")
    page.goto(team_url)
    expect(page.get_by_test_id("team-pipelines")).to_contain_text(f"orders-{suffix}")
    look(page, artifacts, "2-team-with-a-viewer")

    # ... and gives the team a connection profile
    page.goto(f"{live_studio}/connections")
    page.get_by_test_id("connection-name").fill(f"events-{suffix}")
    page.get_by_test_id("connection-address").fill("127.0.0.1:9")
    page.get_by_test_id("connection-team").select_option(label=f"team payments-{suffix}")
    page.get_by_test_id("connection-save").click()
    team_connection = page.locator(f'[data-testid="connection-row"][data-name="events-{suffix}"]')
    expect(team_connection.get_by_test_id("connection-owner")).to_have_text(f"team payments-{suffix}")
    expect(team_connection).to_contain_text(f"connection:team:payments-{suffix}/events-{suffix}")
    page.goto(team_url)

    # bob, a viewer: sees it, may neither save nor run it, and is told why
    bob, bob_page = sign_in(browser, live_studio, bob_name, "bob-password")
    bob_page.goto(f"{live_studio}/pipelines")
    expect(bob_page.get_by_test_id("pipeline-row").filter(has_text=f"orders-{suffix}")).to_contain_text(
        f"team payments-{suffix}")
    open_editor(bob_page, live_studio, pipeline["id"])
    notice = bob_page.get_by_test_id("access-notice")
    expect(notice).to_contain_text(f"viewer in team payments-{suffix}")
    expect(notice).to_contain_text("may not save or run")
    bob_page.get_by_test_id("editor-aside-access").click()
    expect(bob_page.get_by_test_id("pipeline-role")).to_have_text(f"viewer in team payments-{suffix}")
    expect(bob_page.get_by_test_id("pipeline-permissions")).to_have_text("view")
    expect(bob_page.get_by_test_id("pipeline-move")).to_have_count(0)
    bob_page.goto(f"{live_studio}/connections")  # the team's profile: a viewer sees it, may not change it
    bobs_connection = bob_page.locator(f'[data-testid="connection-row"][data-name="events-{suffix}"]')
    expect(bobs_connection.get_by_test_id("connection-owner")).to_have_text(f"team payments-{suffix}")
    expect(bobs_connection.get_by_test_id("connection-delete")).to_have_count(0)
    look(bob_page, artifacts, "3b-viewer-sees-the-teams-connection")
    open_editor(bob_page, live_studio, pipeline["id"])
    bob_page.get_by_test_id("node-double").click()
    bob_page.get_by_test_id("param-expression").fill("x * 9")
    expect(bob_page.get_by_test_id("save")).to_be_disabled()
    expect(bob_page.get_by_test_id("run")).to_be_disabled()
    look(bob_page, artifacts, "3-viewer-may-not-save-or-run")

    # made an editor, bob saves a version (and still may not run it)
    role = page.get_by_test_id(f"member-role-{bob_name}")
    role.select_option("editor")
    expect(role).to_have_value("editor")
    open_editor(bob_page, live_studio, pipeline["id"])
    expect(bob_page.get_by_test_id("access-notice")).to_contain_text("may not run")
    bob_page.get_by_test_id("node-double").click()
    bob_page.get_by_test_id("param-expression").fill("x * 9")
    bob_page.get_by_test_id("save-message").fill("nine times, by bob")
    bob_page.get_by_test_id("save").click()
    expect(bob_page.get_by_test_id("save-status")).to_contain_text("Saved · v2")
    expect(bob_page.get_by_test_id("run")).to_be_disabled()
    look(bob_page, artifacts, "4-editor-saved")
    latest = api_call(page, live_studio, "GET", f"/api/pipelines/{pipeline['id']}")
    assert latest["version"] == 2 and latest["definition"]["nodes"][1]["params"]["expression"] == "x * 9"

    # removed from the team, bob loses the pipeline at his next request
    page.get_by_test_id(f"member-remove-{bob_name}").click()
    expect(page.get_by_test_id(f"member-{bob_name}")).to_have_count(0)
    bob_page.reload()
    expect(bob_page.get_by_text(f"Could not open pipeline {pipeline['id']}")).to_be_visible()
    expect(bob_page.get_by_text("your role in the team that owns it")).to_be_visible()
    look(bob_page, artifacts, "5-removed-member-loses-it")
    bob_page.goto(f"{live_studio}/pipelines")
    expect(bob_page.get_by_test_id("pipeline-row").filter(has_text=f"orders-{suffix}")).to_have_count(0)
    bob_page.goto(f"{live_studio}/connections")
    expect(bob_page.locator(f'[data-testid="connection-row"][data-name="events-{suffix}"]')).to_have_count(0)
    assert bob.request.get(f"{live_studio}/api/pipelines/{pipeline['id']}").status == 404
    bob.close()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Grace", "-c", "user.email=grace@example.com", *args], cwd=cwd,
                          check=True, capture_output=True, text=True, timeout=60).stdout


def push_change(work: Path, file: str, old: str, new: str, message: str) -> None:
    git(work, "pull", "-q", "--ff-only")
    path = work / file
    path.write_text(path.read_text().replace(old, new))
    git(work, "commit", "-qam", message)
    git(work, "push", "-q", "origin", "main")


@pytest.fixture
def origin(page, live_studio, tmp_path):
    """A bare repository in a location granted to the admin, and a clone of it to work in beside the studio."""
    granted = tmp_path / "granted"
    granted.mkdir()
    location = api_call(page, live_studio, "POST", "/api/locations",
                        {"name": f"git-{uuid.uuid4().hex[:6]}", "kind": "path", "prefix": str(granted),
                         "all_users": False})
    api_call(page, live_studio, "POST", f"/api/locations/{location['id']}/grants", {"user": "admin"})
    bare = granted / "pipelines.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    yield bare
    api_call(page, live_studio, "DELETE", f"/api/locations/{location['id']}")


def save_in_editor(page, expression: str, message: str, version: int) -> None:
    page.get_by_test_id("node-double").click()
    page.get_by_test_id("param-expression").fill(expression)
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid")
    page.get_by_test_id("save-message").fill(message)
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text(f"Saved · v{version}")


def test_a_pipeline_kept_in_git_saves_pulls_and_resolves_a_conflict(live_studio, page, artifacts, origin,
                                                                    tmp_path):
    suffix = uuid.uuid4().hex[:6]
    name = f"clicks-{suffix}"
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": name, "definition": simple_pipeline(name=name), "message": "first"})
    file = f"{name}.pipeline.yaml"

    # bind it from the editor's Git link: its one version becomes the first commit
    open_editor(page, live_studio, pipeline["id"])
    page.get_by_test_id("editor-aside-git").click()
    page.get_by_test_id("git-repository").fill(str(origin))
    page.get_by_test_id("git-bind").click()
    expect(page.get_by_test_id("git-steps")).to_contain_text("from v1")
    expect(page.get_by_test_id("git-binding-path")).to_have_text(file)
    expect(page.get_by_test_id("git-verdict")).to_contain_text("the same file")
    look(page, artifacts, "6-bound-to-git")

    # saving a version commits it, with its message and author
    open_editor(page, live_studio, pipeline["id"])
    save_in_editor(page, "x * 3", "triple the clicks", 2)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    assert git(work, "log", "--format=%s|%an").splitlines() == ["triple the clicks|admin", "first|admin"]
    assert "expression: x * 3" in (work / file).read_text()

    # a change pushed in Git is pulled in as a new version
    push_change(work, file, "x * 3", "x * 4", "four times, from Git")
    page.get_by_test_id("editor-aside-git").click()
    page.get_by_test_id("git-pull").click()
    expect(page.get_by_test_id("git-steps")).to_contain_text("v3 from commit")
    expect(page.get_by_test_id("git-binding-synced")).to_contain_text("= v3")
    look(page, artifacts, "7-pulled-from-git")
    latest = api_call(page, live_studio, "GET", f"/api/pipelines/{pipeline['id']}")
    assert latest["version"] == 3 and latest["definition"]["nodes"][1]["params"]["expression"] == "x * 4"

    # both sides change: a conflict, shown with both definitions, written nowhere
    push_change(work, file, "x * 4", "x * 5", "five times, from Git")
    open_editor(page, live_studio, pipeline["id"])
    save_in_editor(page, "x * 6", "six times, in the studio", 4)
    page.get_by_test_id("editor-aside-git").click()
    conflict = page.get_by_test_id("git-conflict")
    expect(conflict.get_by_test_id("git-conflict-diff")).to_contain_text("x * 5")
    expect(conflict.get_by_test_id("git-conflict-diff")).to_contain_text("x * 6")
    expect(page.get_by_test_id("git-verdict")).to_contain_text("In conflict: both sides changed")
    look(page, artifacts, "8-conflict")
    git(work, "pull", "-q", "--ff-only")
    assert "x * 5" in (work / file).read_text()  # the studio's save was not committed over Git's change

    # take the studio's side: committed on top of Git's, Git's change stays in its history
    conflict.get_by_test_id("git-take-studio").click()
    expect(page.get_by_test_id("git-conflict")).to_have_count(0)
    expect(page.get_by_test_id("git-verdict")).to_contain_text("the same file")
    look(page, artifacts, "9-resolved-taking-the-studio")
    git(work, "pull", "-q", "--ff-only")
    assert "x * 6" in (work / file).read_text()
    assert git(work, "log", "--format=%s", "-3").splitlines() == [
        "six times, in the studio (the studio's side of a conflict)", "five times, from Git", "four times, from Git"]

    # the file page: the YAML of the latest version, and its diff against Git after a change there
    push_change(work, file, "x * 6", "x * 7", "seven times, from Git")
    page.get_by_test_id("aside-file").click()
    expect(page.get_by_test_id("file-name")).to_have_text(file)
    expect(page.get_by_test_id("file-text")).to_contain_text("expression: x * 6")
    expect(page.get_by_test_id("file-git-diff")).to_contain_text("x * 7")
    expect(page.get_by_test_id("file-git-verdict")).to_contain_text("logic differs")
    look(page, artifacts, "10-file-and-its-diff-with-git")
