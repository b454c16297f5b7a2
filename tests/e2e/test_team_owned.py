"""What a team owns besides pipelines, in Chromium, as two people use it.

The admin's team is granted a storage location by the administrator; the admin makes a secret and a "prod"
environment for the team in the Environments page. Bob, the team's operator, sees the granted location on the
team's page, the team's environment and secret (neither of which he may change, and the secret's value never),
and watches his run of the team's pipeline in the team's prod. Removed from the team, his open run page drops
the graph at once, without a reload (the socket's revocation, then the page).

Screenshots are in ``test-results/team-owned/``.
"""
from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, log_in, make_user
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SECRET_VALUE = "e2e-team-S3cr3t"


def look(page, artifacts, name: str) -> None:
    folder = artifacts / "team-owned"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def test_a_teams_location_secret_and_environment_and_a_removed_member_losing_the_open_run(
        live_studio, page, browser, artifacts, tmp_path_factory):
    suffix = uuid.uuid4().hex[:6]
    team_name, bob_name = f"payments-{suffix}", f"bob{suffix}"
    make_user(tmp_path_factory, bob_name, "bob-password")
    team = api_call(page, live_studio, "POST", "/api/teams", {"name": team_name})
    member = api_call(page, live_studio, "POST", f"/api/teams/{team['id']}/members",
                      {"username": bob_name, "role": "operator"})
    definition = simple_pipeline(count=None, rate=5, expression="x * ${param:factor}", name=f"scaled-{suffix}")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"],
                                                                      "definition": definition})
    api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/team", {"team": team["id"]})
    # the administrator grants the team a location (read only)
    lake = api_call(page, live_studio, "POST", "/api/locations",
                    {"name": f"lake-{suffix}", "kind": "path", "prefix": f"/srv/lake-{suffix}"})
    api_call(page, live_studio, "POST", f"/api/locations/{lake['id']}/grants", {"team": team_name, "can_write": False})

    # the admin makes the team's environment and secret in the Environments page
    page.goto(f"{live_studio}/environments")
    page.get_by_test_id("environment-name").fill("prod")
    page.get_by_test_id("environment-owner").select_option(label=f"team {team_name}")
    page.get_by_test_id("environment-save").click()
    card = page.locator(f'[data-testid="environment-card"][data-name="prod"]').filter(has_text=f"team {team_name}")
    expect(card.get_by_test_id("environment-team")).to_have_text(f"team {team_name}")
    card.get_by_test_id("parameter-add").click()
    card.get_by_test_id("parameter-name").fill("factor")
    card.get_by_test_id("parameter-value").fill("7")
    card.get_by_test_id("parameters-save").click()
    expect(card.get_by_role("status")).to_have_text("saved")
    page.get_by_test_id("secret-name").fill(f"db_{suffix}")
    page.get_by_test_id("secret-new-value").fill(SECRET_VALUE)
    page.get_by_test_id("secret-owner").select_option(label=f"team {team_name}")
    page.get_by_test_id("secret-save").click()
    secret_row = page.locator(f'[data-testid="secret-row"][data-name="db_{suffix}"]')
    expect(secret_row.get_by_test_id("secret-team")).to_have_text(f"team {team_name}")
    look(page, artifacts, "1-admin-made-the-teams-environment-and-secret")

    # bob, the team's operator, sees what the team owns and may change none of it
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    log_in(context, live_studio, "bob-password", bob_name)
    bob_page = context.new_page()
    bob_page.goto(f"{live_studio}/teams/{team['id']}")
    granted = bob_page.get_by_test_id(f"team-location-lake-{suffix}")
    expect(granted).to_contain_text("read only")
    look(bob_page, artifacts, "2-operator-sees-the-teams-location")
    bob_page.goto(f"{live_studio}/environments")
    bobs_card = bob_page.locator('[data-testid="environment-card"][data-name="prod"]').filter(has_text=team_name)
    expect(bobs_card.get_by_test_id("parameter-value")).to_have_value("7")
    expect(bobs_card.get_by_test_id("parameter-value")).to_be_disabled()
    expect(bobs_card.get_by_test_id("parameters-save")).to_have_count(0)
    bobs_secret = bob_page.locator(f'[data-testid="secret-row"][data-name="db_{suffix}"]')
    expect(bobs_secret.get_by_test_id("secret-read-only")).to_contain_text(f"only an admin of team {team_name}")
    assert SECRET_VALUE not in bob_page.content()
    look(bob_page, artifacts, "3-operator-sees-the-teams-environment")
    bobs_secret.scroll_into_view_if_needed()
    look(bob_page, artifacts, "3b-operator-sees-the-teams-secret-by-name-only")

    # bob runs the team's pipeline in the team's prod and watches it
    run = api_call(bob_page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {"environment": "prod"})
    assert run["environment"] == "prod"
    bob_page.goto(f"{live_studio}/runs/{run['id']}")
    expect(bob_page.get_by_test_id("node-double")).to_be_visible(timeout=30_000)
    look(bob_page, artifacts, "4-operator-watches-his-run-in-the-teams-prod")

    # removed from the team, his open run page drops the graph without a reload
    api_call(page, live_studio, "DELETE", f"/api/teams/{team['id']}/members/{member['id']}")
    expect(bob_page.get_by_test_id("run-access-lost")).to_be_visible(timeout=15_000)
    expect(bob_page.get_by_test_id("node-double")).to_have_count(0)
    look(bob_page, artifacts, "5-removed-member-loses-the-open-run")
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel")
    context.close()

