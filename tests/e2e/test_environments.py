"""Environments, promotion with approval and secrets, in Chromium: the admin keeps a secret (write-only),
makes dev and prod with different parameters (prod asks an operator of the pipeline to approve: carol is one in
the pipeline's team, dave only a viewer there and cannot), promotes a version into dev and then prod, carol
approves it in her own browser, and the admin runs it in prod: the run takes prod's parameters, its secret is
filled in by the driver, the run page says it runs in prod and with which parameters, and no page shows the
secret.

Screenshots are in ``test-results/environments/``.
"""
from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, log_in, make_user, wait_for_run
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

SECRET_VALUE = f"e2e-S3cr3t-{uuid.uuid4().hex[:8]}"


def look(page, artifacts, name: str) -> None:
    folder = artifacts / "environments"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def parameter(card, name: str, value: str) -> None:
    card.get_by_test_id("parameter-add").click()
    card.get_by_test_id("parameter-name").last.fill(name)
    card.get_by_test_id("parameter-value").last.fill(value)


def environment(page, name: str, values: dict[str, str], approval_role: str = "") -> None:
    page.get_by_test_id("environment-name").fill(name)
    if approval_role:
        page.get_by_test_id("environment-requires-approval").check()
        page.get_by_test_id("environment-approval-role").select_option(approval_role)
    page.get_by_test_id("environment-save").click()
    card = page.locator(f'[data-testid="environment-card"][data-name="{name}"]')
    expect(card).to_be_visible()
    for key, value in values.items():
        parameter(card, key, value)
    card.get_by_test_id("parameters-save").click()
    expect(card.get_by_role("status")).to_have_text("saved")


def promote(page, pipeline_name: str, target: str) -> None:
    page.get_by_test_id("promotion-pipeline").select_option(label=pipeline_name)
    page.get_by_test_id("promotion-version").fill("1")
    page.get_by_test_id("promotion-target").select_option(label=target)
    page.get_by_test_id("promotion-preview").click()
    expect(page.get_by_test_id("promotion-form").get_by_test_id("promotion-diff")).to_be_visible()


def test_promote_with_approval_and_run_in_prod_with_a_secret(live_studio, page, browser, artifacts,
                                                            tmp_path_factory):
    suffix = uuid.uuid4().hex[:4]
    make_user(tmp_path_factory, "carol", "carol-password")
    make_user(tmp_path_factory, "dave", "dave-password")
    definition = simple_pipeline(count=None, expression="x * ${param:factor} if len('${param:auth}') > 7 else -1",
                                 name=f"scaled-{suffix}")
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": definition["name"], "definition": definition})
    # the pipeline's team: carol operates it, dave only views it (the teams' own story is test_teams_and_git)
    team = api_call(page, live_studio, "POST", "/api/teams", {"name": f"releases-{suffix}"})
    for member, role in (("carol", "operator"), ("dave", "viewer")):
        api_call(page, live_studio, "POST", f"/api/teams/{team['id']}/members", {"username": member, "role": role})
    api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/team", {"team": team["id"]})

    # a secret, typed once and never shown again
    page.goto(f"{live_studio}/environments")
    page.get_by_test_id("secret-name").fill(f"token_{suffix}")
    page.get_by_test_id("secret-new-value").fill(SECRET_VALUE)
    page.get_by_test_id("secret-save").click()
    row = page.locator(f'[data-testid="secret-row"][data-name="token_{suffix}"]')
    expect(row).to_contain_text("${secret:token_" + suffix + "}")
    expect(row.get_by_test_id("secret-value")).to_contain_text("never shown")

    # dev and prod: prod's parameters differ, and a promotion into prod waits for carol
    auth = "Bearer ${secret:token_" + suffix + "}"
    environment(page, f"dev-{suffix}", {"factor": "2", "count": "10", "auth": auth})
    environment(page, f"prod-{suffix}", {"factor": "5", "count": "30", "auth": auth}, approval_role="operator")
    expect(page.locator(f'[data-testid="environment-card"][data-name="prod-{suffix}"]').get_by_test_id(
        "environment-approval")).to_have_text("approval by an operator of the pipeline")
    look(page, artifacts, "1-environments-and-secret")

    promote(page, pipeline["name"], f"dev-{suffix}")
    page.get_by_test_id("promotion-promote").click()
    expect(page.locator('[data-testid="promotion"][data-status="APPLIED"]')).to_have_count(1)
    promote(page, pipeline["name"], f"prod-{suffix}")
    diff = page.get_by_test_id("promotion-form").get_by_test_id("promotion-diff")
    expect(diff).to_contain_text("factor")
    expect(diff.locator("tr", has_text="factor")).to_contain_text("5")
    look(page, artifacts, "2-diff-before-promoting-to-prod")
    page.get_by_test_id("promotion-message").fill("release 1")
    page.get_by_test_id("promotion-promote").click()
    pending = page.locator('[data-testid="promotion"][data-status="PENDING"]')
    expect(pending.get_by_test_id("promotion-waits-for")).to_contain_text("waits for a user holding the operator role")
    expect(pending.get_by_test_id("promotion-approve")).to_have_count(0)  # who asked may not approve
    promotion_id = int(api_call(page, live_studio, "GET", "/api/promotions?status=PENDING")[0]["id"])

    # dave, a viewer of the pipeline's team, neither sees nor approves it
    dave = browser.new_context(viewport={"width": 1440, "height": 900})
    log_in(dave, live_studio, "dave-password", "dave")
    dave_page = dave.new_page()
    dave_page.goto(f"{live_studio}/environments")
    expect(dave_page.get_by_test_id("environments-page")).to_be_visible()
    expect(dave_page.locator('[data-testid="promotion"]')).to_have_count(0)
    assert api_call(dave_page, live_studio, "GET", "/api/promotions") == []
    csrf = next(cookie["value"] for cookie in dave.cookies() if cookie["name"] == "csrftoken")
    refused = dave.request.post(f"{live_studio}/api/promotions/{promotion_id}/approve", data={},
                                headers={"X-CSRFToken": csrf, "Referer": live_studio + "/"})
    assert refused.status == 404, refused.text()
    dave.close()

    # carol, in her own browser, sees it with its diff and approves it
    carol = browser.new_context(viewport={"width": 1440, "height": 900})
    log_in(carol, live_studio, "carol-password", "carol")
    carol_page = carol.new_page()
    carol_page.goto(f"{live_studio}/environments")
    waiting = carol_page.locator('[data-testid="promotion"][data-status="PENDING"]')
    expect(waiting).to_contain_text(f"prod-{suffix}")
    waiting.get_by_test_id("promotion-comment").fill("diff checked")
    look(carol_page, artifacts, "3-carol-approves")
    waiting.get_by_test_id("promotion-approve").click()
    expect(carol_page.locator('[data-testid="promotion"][data-status="APPLIED"]')).to_contain_text("approved by carol")
    carol.close()

    # the admin runs the approved version in prod
    page.reload()
    applied = page.locator('[data-testid="promotion"][data-status="APPLIED"]', has_text=f"prod-{suffix}")
    expect(applied.get_by_test_id("promotion-decision")).to_contain_text("approved by carol")
    look(page, artifacts, "4-approved-and-recorded")
    applied.get_by_test_id("promotion-run").click()
    page.wait_for_url("**/runs/*")
    run_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    run = wait_for_run(page, live_studio, run_id, lambda r: r["status"] in ("FINISHED", "FAILED", "CANCELED"), 600)
    assert run["status"] == "FINISHED", run.get("failure_cause")
    assert sorted(run["collected"]["out"]) == [5 * x for x in range(30)]  # prod's count and factor
    page.reload()
    expect(page.get_by_text("FINISHED").first).to_be_visible()
    chip = page.get_by_test_id("run-environment")
    expect(chip).to_have_attribute("data-environment", f"prod-{suffix}")
    chip.get_by_test_id("run-environment-parameters-toggle").click()
    expect(chip.locator('[data-testid="run-environment-parameter"][data-name="factor"]')).to_have_text("factor = 5")
    expect(chip.locator('[data-testid="run-environment-parameter"][data-name="auth"]')).to_have_text(f"auth = {auth}")
    look(page, artifacts, "5-run-in-prod")
    assert SECRET_VALUE not in page.content()
    assert api_call(page, live_studio, "GET", f"/api/runs/{run_id}/environment")["environment"] == f"prod-{suffix}"

    page.goto(f"{live_studio}/environments")
    prod = page.locator(f'[data-testid="environment-card"][data-name="prod-{suffix}"]')
    expect(prod.get_by_test_id("environment-runs")).to_contain_text(f"run {run_id}")
    assert SECRET_VALUE not in page.content()
    look(page, artifacts, "6-what-runs-where")
