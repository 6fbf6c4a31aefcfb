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


async def test_authenticated_answers_and_the_token_endpoint_are_never_stored(client, factory):
    """A member's data must not stay in the cache of a shared PC's browser nor of a proxy (RFC 9111 no-store);
    the token endpoint's answers, errors included, per RFC 6749 §5.1."""
    org = await factory.organisation()
    member = await factory.actor([], organisation=org)
    for path in ("/api/membres/me", "/api/paiements/mes-paiements", "/api/organisations/mes-organisations",
                 "/api/membres/00000000-0000-0000-0000-000000000000"):  # a 404 too
        response = await client.get(path, headers=member.headers)
        assert response.headers["Cache-Control"] == "no-store", (path, response.status_code)
    invalid = await client.get("/api/membres/me", headers={"Authorization": "Bearer not-a-jwt"})
    assert invalid.status_code == 401 and invalid.headers["Cache-Control"] == "no-store"
    refused = await client.post("/api/auth/token", data={"grant_type": "password", "username": "x@example.sn",
                                                         "password": "wrong-password"})
    assert refused.status_code == 400
    assert (refused.headers["Cache-Control"], refused.headers["Pragma"]) == ("no-store", "no-cache")
    # Public documents asked without credentials keep their own rules.
    for path in ("/api/auth/jwks", "/.well-known/openid-configuration", "/openapi.json"):
        assert "no-store" not in (await client.get(path)).headers.get("Cache-Control", ""), path
