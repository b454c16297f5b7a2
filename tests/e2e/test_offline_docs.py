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
    page.goto(live_studio + "/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Pipeline studio API", timeout=20_000)
    expect(page.locator(".opblock-summary-path", has_text="/api/pipelines/{id}/runs").first).to_be_visible()
    page.screenshot(path=str(artifacts / "api-docs-offline.png"))
    assert refused == [], f"the docs page asked other hosts for {refused}"
