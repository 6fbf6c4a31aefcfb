"""Security headers on every response; Swagger UI and ReDoc served offline from the package, never framed."""

from __future__ import annotations

import re

import pytest

URL_ATTRIBUTE = re.compile(r"""(?:src|href|url)\s*[=:(]\s*['"]?([^'"\s)]+)""", re.IGNORECASE)


async def test_api_responses_carry_nosniff_and_refuse_framing(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    for response in (await client.get("/api/organisations", headers=admin.headers),
                     await client.get("/api/organisations"),  # 401 problem+json
                     await client.get("/health/live"), await client.get("/openapi.json")):
        assert response.headers["X-Content-Type-Options"] == "nosniff", response.request.url
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize(("path", "bundle"), [("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")])
async def test_documentation_is_served_offline_and_not_frameable(client, path, bundle):
    page = await client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["X-Frame-Options"] == "DENY"
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp
    # Every asset the page loads is on this service: no CDN, no web fonts.
    urls = URL_ATTRIBUTE.findall(page.text)
    assert urls and not [u for u in urls if re.match(r"(?i)^(https?:)?//", u)], urls
    assert "cdn" not in page.text.lower() and "googleapis" not in page.text
    script = next(u for u in urls if u.endswith(bundle))
    asset = await client.get(script)
    assert asset.status_code == 200 and len(asset.content) > 100_000
    assert "javascript" in asset.headers["content-type"] and asset.headers["X-Content-Type-Options"] == "nosniff"


async def test_swagger_oauth2_redirect_page_is_local(client):
    page = await client.get("/docs/oauth2-redirect")
    assert page.status_code == 200 and "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
