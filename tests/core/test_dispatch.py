"""The prefix index chooses exactly the route FastAPI's linear scan chooses, for every route's path instantiated
with identifiers and with words (literal siblings such as /api/adhesions/stats), under every method."""

from __future__ import annotations

import re
import uuid
from typing import Any

from fastapi import FastAPI
from fastapi.routing import _IncludedRouter
from starlette.routing import BaseRoute, Match

from unionflow.core.dispatch import PrefixDispatch, path_key
from unionflow.core.routing import api_routes

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
PARAM = re.compile(r"\{[^}]+\}")
ODD_PATHS = ["/", "/api", "/api/", "/api/cotisations/", "/api/status/", "/inconnu/chemin", "/api/inconnu",
             "/health/ready/", "/metrics", "/docs", "/openapi.json", "//api/status", "/api/adhesions/stats/x"]


def _scope(app: FastAPI, method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": [], "query_string": b"",
            "app": app}


def _choose(app: FastAPI, routes: list[BaseRoute], method: str, path: str) -> tuple[Any, ...] | None:
    """The route a scan of ``routes`` hands the request to (the leaf inside an included router), and how."""
    scope = _scope(app, method, path)
    partial = None
    for route in routes:
        match, child = route.matches(scope)
        if match == Match.FULL or (match == Match.PARTIAL and partial is None):
            if isinstance(route, _IncludedRouter):
                _, inner, leaf, _ = route._match({**scope, **child})
                found = (match, route, leaf, tuple(sorted(inner.get("path_params", {}).items())))
            else:
                found = (match, route, None, tuple(sorted(child.get("path_params", {}).items())))
            if match == Match.FULL:
                return found
            partial = found
    return partial


def _paths(app: FastAPI) -> set[str]:
    paths = set(ODD_PATHS)
    for info in api_routes(app):
        for filler in (str(uuid.uuid4()), "stats", "mes-cotisations", "x"):
            paths.add(PARAM.sub(filler, info.path))
    for route in app.routes:
        path = getattr(route, "path", None)
        if isinstance(path, str):
            paths.add(PARAM.sub("x", path))
    return paths


def test_the_index_chooses_what_the_linear_scan_chooses(app: FastAPI):
    dispatch = app.router.middleware_stack
    assert isinstance(dispatch, PrefixDispatch)
    paths = _paths(app)
    assert len(paths) > 500
    scanned = 0
    for path in sorted(paths):
        candidates = dispatch.candidates(path)
        # The point of it: a request never sees most of the app's routes.
        if path_key(path) in dispatch._index:
            scanned = max(scanned, len(candidates))
        for method in METHODS:
            linear = _choose(app, list(app.router.routes), method, path)
            indexed = _choose(app, candidates, method, path)
            assert indexed == linear, (method, path)
    assert scanned < len(app.router.routes) / 4


async def test_requests_reach_the_route_the_scan_chooses(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    # A literal sibling wins over the template, as before; a wrong method gets the resource's own Allow.
    stats = await client.get("/api/adhesions/stats", headers=admin.headers)
    assert stats.status_code == 200, stats.text
    refused = await client.put("/api/adhesions/stats", headers=admin.headers, json={})
    assert refused.status_code == 405 and "GET" in refused.headers["allow"]
    assert (await client.get("/api/inconnu", headers=admin.headers)).status_code == 404
    # Trailing slash: no candidate matches, FastAPI's own router answers (redirect) as before.
    slashed = await client.get("/api/status/", headers=admin.headers, follow_redirects=False)
    assert slashed.status_code == 307 and slashed.headers["location"].endswith("/api/status")
