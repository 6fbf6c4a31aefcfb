"""Every route is either guarded by a role set or deliberately public."""

from __future__ import annotations

from fastapi.routing import APIRoute

from tests.security.catalog import api_routes
from unionflow.core.routing import PUBLIC_ROUTES, find_authorizer


def _area(path: str) -> str:
    return "/".join(path.split("/")[:3])


def test_every_route_is_guarded_or_public(app):
    unguarded = [
        f"{method} {route.path_format}"
        for route in api_routes(app)
        for method in sorted(route.methods or ())
        if find_authorizer(route.dependant) is None and (method, route.path_format) not in PUBLIC_ROUTES
    ]
    assert not unguarded, f"routes without authorize(...) and not on PUBLIC_ROUTES: {unguarded}"


def test_public_routes_exist_and_are_unguarded(app):
    routes = {(m, str(r.path_format)): r for r in api_routes(app) for m in (r.methods or ())}
    mounted_areas = {_area(path) for _m, path in routes}
    guarded = [f"{m} {p}" for (m, p) in PUBLIC_ROUTES
               if (m, p) in routes and find_authorizer(routes[(m, p)].dependant) is not None]
    assert not guarded, f"PUBLIC_ROUTES entries that are guarded: {guarded}"
    # An entry whose area is mounted must exist; entries of areas not built into this app (their router is not
    # in ROUTERS yet) are reported rather than failed.
    stale = [f"{m} {p}" for (m, p) in PUBLIC_ROUTES if (m, p) not in routes and _area(p) in mounted_areas]
    assert not stale, f"PUBLIC_ROUTES entries that match no route: {stale}"
    not_mounted = sorted(f"{m} {p}" for (m, p) in PUBLIC_ROUTES if _area(p) not in mounted_areas)
    if not_mounted:
        print(f"\nPUBLIC_ROUTES entries of areas not mounted in this build: {not_mounted}")


def test_the_guard_test_catches_an_unguarded_route(app):
    from fastapi import APIRouter

    stray = APIRouter()

    @stray.get("/api/oublie")
    async def forgotten() -> dict[str, str]:
        return {}

    route = next(r for r in stray.routes if isinstance(r, APIRoute))
    assert find_authorizer(route.dependant) is None and ("GET", "/api/oublie") not in PUBLIC_ROUTES


def test_walk_sees_every_mounted_route(app):
    paths = {str(r.path_format) for r in api_routes(app)}
    assert {"/api/auth/token", "/api/admin/users/{id}/roles", "/api/membres/me/mot-de-passe"} <= paths


def test_openapi_declares_each_route_roles(app):
    schema = app.openapi()
    operation = schema["paths"]["/api/admin/users/{id}/roles"]["put"]
    assert operation["security"] == [{"IdentityProvider": ["SUPER_ADMIN"]}] and operation["x-role-set"] == "RS-SA"
    assert schema["paths"]["/api/auth/token"]["post"]["security"] == []
    assert "429" in schema["paths"]["/api/auth/token"]["post"]["responses"]
