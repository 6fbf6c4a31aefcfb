"""The published OpenAPI: spec area tags, the IdentityProvider scheme with each route's roles, problem responses."""

from __future__ import annotations

from unionflow.core.openapi import AREAS
from unionflow.core.routing import PUBLIC_ROUTES, api_routes


async def test_openapi_declares_security_roles_and_problems(client, app):
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["info"]["version"] == "1.0.0"
    assert schema["components"]["securitySchemes"]["IdentityProvider"]["scheme"] == "bearer"
    tags = {t["name"] for t in schema["tags"]}
    assert set(AREAS) <= tags

    operations = 0
    for info in api_routes(app):
        for method in info.methods:
            op = schema["paths"][info.path][method.lower()]
            operations += 1
            # 422 means only "Idempotency-Key reused with another request", on operations taking that header.
            keyed = any(p["name"] == "Idempotency-Key" for p in op.get("parameters", []))
            assert ("422" in op["responses"]) == keyed, f"{method} {info.path}: 422 without Idempotency-Key"
            assert "400" in op["responses"] and "500" in op["responses"]
            assert set(op.get("tags", [])) <= tags, f"{method} {info.path} has a tag outside the spec areas"
            if (method, info.path) in PUBLIC_ROUTES:
                assert op["security"] == []
            else:
                roles = op["security"][0]["IdentityProvider"]
                assert roles == sorted(info.authorizer.role_set.roles)  # type: ignore[union-attr]
                assert {"401", "403"} <= set(op["responses"])
                assert op["responses"]["403"]["content"]["application/problem+json"]
    assert operations >= 10


async def test_swagger_ui_is_served(client):
    response = await client.get("/docs")
    assert response.status_code == 200 and "swagger" in response.text.lower()
