"""In a real browser with every request to another host refused: Swagger UI at /api/docs/ still renders."""
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}


def test_api_docs_render_with_the_network_blocked(live_studio, page, artifacts):
    refused = []

    def only_local(route):
        if urlparse(route.request.url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", only_local)
    # Swagger UI renders a list of 150 tags and operations or more virtualised: only what is near the
    # viewport is in the page, so an operation far down is reached the way a reader would link to it,
    # by its deep link, which scrolls the list to it and opens it.
    page.goto(live_studio + "/api/docs/#/pipelines/pipelines_runs_list")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Pipeline studio API", timeout=20_000)
    runs = page.locator("#operations-pipelines-pipelines_runs_list")
    expect(runs.locator(".opblock-summary-path")).to_have_text("/api/pipelines/{id}/runs/")
    # opened, with its references resolved: the parameters and an example answer built from the schema
    expect(runs.locator(".parameters")).to_contain_text("id")
    expect(runs.locator(".responses-wrapper .example").first).to_contain_text('"pipeline_name"')
    page.screenshot(path=str(artifacts / "api-docs-offline.png"))
    assert refused == [], f"the docs page asked other hosts for {refused}"
