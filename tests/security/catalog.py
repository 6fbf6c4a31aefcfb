"""The app's routes and the spec's endpoints, gathered at collection time for parametrised security tests."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts

from unionflow.app import create_app
from unionflow.config import Settings
from unionflow.core.routing import PUBLIC_ROUTES, find_authorizer

SPEC_FILE = Path(__file__).resolve().parents[2] / "spec" / "endpoints.json"
ALL_ROLES = ("SUPER_ADMIN", "ADMIN", "ADMIN_ORGANISATION", "MEMBRE", "USER", "MODERATEUR", "TRESORIER",
             "PRESIDENT", "SECRETAIRE", "ORGANISATEUR_EVENEMENT", "COMMISSAIRE_AUX_COMPTES",
             "DELEGUE_PROTECTION_DONNEES")


def normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    declared: frozenset[str] | None  # the route's own role set (None: public)
    spec: frozenset[str] | None  # the spec's roles, when the spec lists the endpoint with roles
    in_spec: bool
    extension: frozenset[str] = frozenset()  # roles the route adds to the spec's set (documented, issue 19)

    @property
    def expected(self) -> frozenset[str]:
        roles = self.spec | self.extension if self.spec is not None else self.declared
        assert roles is not None
        return roles

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"


def api_routes(app: FastAPI) -> list[RouteContext]:
    """The app's API routes as served: FastAPI keeps included routers as wrappers in ``app.routes``."""
    return [c for c in iter_route_contexts(app.routes) if isinstance(c.original_route, APIRoute)]


def app_routes() -> list[RouteContext]:
    # Collection time: an app that is built but never started (no database connection is opened).
    return api_routes(create_app(Settings(database_url="sqlite://")))


def spec_document() -> dict[str, Any]:
    return json.loads(SPEC_FILE.read_text(encoding="utf-8"))


def _spec_index() -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["method"], normalise(e["path"])): e for e in spec_document()["endpoints"]}


def guarded_endpoints() -> list[Endpoint]:
    spec = _spec_index()
    found: list[Endpoint] = []
    for route in app_routes():
        authorizer = find_authorizer(route.dependant)
        for method in sorted(route.methods or ()):
            path = str(route.path_format)
            if (method, path) in PUBLIC_ROUTES or authorizer is None:
                continue
            entry = spec.get((method, normalise(path)))
            roles = entry.get("roles") if entry else None
            found.append(Endpoint(method, path, frozenset(authorizer.role_set.roles),
                                  frozenset(roles) if roles else None, entry is not None,
                                  frozenset(authorizer.role_set.extension)))
    return found


def absent_spec_endpoints() -> list[str]:
    present = {(m, normalise(str(r.path_format))) for r in app_routes() for m in (r.methods or ())}
    return [f"{m} {p}" for (m, p) in sorted(_spec_index()) if (m, p) not in present]
