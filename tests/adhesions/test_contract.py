"""Every Adhésions and Cotisations endpoint of spec/endpoints.json exists with its role set and success code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unionflow.adhesions.router import router as adhesions_router
from unionflow.core.routing import find_authorizer
from unionflow.cotisations.router import router as cotisations_router

SPEC = json.loads((Path(__file__).resolve().parents[2] / "spec" / "endpoints.json").read_text())
ENDPOINTS = [e for e in SPEC["endpoints"] if e["area"] in ("Adhésions", "Cotisations")]


ROUTES = {(method, route.path): route for router in (adhesions_router, cotisations_router)
          for route in router.routes for method in route.methods}


@pytest.fixture(scope="module")
def openapi(app):
    return app.openapi()


def test_counts():
    assert sum(e["area"] == "Adhésions" for e in ENDPOINTS) == 14
    assert sum(e["area"] == "Cotisations" for e in ENDPOINTS) == 19


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: f"{e['method']} {e['path']}")
def test_endpoint_matches_spec(openapi, endpoint):
    route = ROUTES[(endpoint["method"], endpoint["path"])]
    authorizer = find_authorizer(route.dependant)
    assert sorted(authorizer.role_set.roles) == sorted(endpoint["roles"])
    if "role_set" in endpoint:
        assert authorizer.role_set.name == endpoint["role_set"]
    assert route.status_code in (None, endpoint["success"]) and route.tags == [endpoint["area"]]
    if route.status_code is None:
        assert endpoint["success"] == 200
    operation = openapi["paths"][endpoint["path"]][endpoint["method"].lower()]
    assert str(endpoint["success"]) in operation["responses"]
    names = {p["name"]: p for p in operation.get("parameters", [])}
    for name, rules in endpoint.get("paging", {}).items():
        schema = names[name]["schema"]
        assert schema["default"] == rules["default"]
        assert schema["minimum"] == (0 if name == "page" else 1)


def test_generation_route_has_its_own_role_set():
    authorizer = find_authorizer(ROUTES[("POST", "/api/cotisations/generer")].dependant)
    assert sorted(authorizer.role_set.roles) == ["ADMIN", "ADMIN_ORGANISATION", "TRESORIER"]
