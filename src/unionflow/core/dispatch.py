"""Dispatch by path prefix: a request is matched only against the routes that can serve its first two path
segments, instead of FastAPI's scan of every route (~300, 11 % of a worker's CPU on a get-by-id).

The index maps the first two segments of each route's path (``/api/cotisations/{id}`` → ``api``,
``cotisations``) to the app's top-level routes (one per included area router) that hold a route with that
prefix, in their original order; a route whose first two segments are not literal (a parameter, a mount)
is a candidate for every request. The candidates are a superset, in the same order, of every route that can
match the path, so the first full match (and failing that the first partial one, answering 405) is the
route FastAPI's linear scan would choose; when no candidate matches at all, the request goes to FastAPI's
own router unchanged (trailing-slash redirects, low-priority routes, 404). ``app.routes`` is not changed:
OpenAPI, tests/test_routes.py and ``core.routing.allowed_methods`` see the same routes as before.
tests/core/test_dispatch.py compares the chosen route with the linear scan for every route.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from fastapi import FastAPI
from fastapi.routing import APIRouter, _apply_router_form_limits, _IncludedRouter, _update_scope
from fastapi.telemetry._api import _route_selected
from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Host, Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

Key = tuple[str, ...]
WILDCARD: Key = ("*",)


def path_key(path: str) -> Key:
    """First two segments of a path (fewer for a shorter one): ``/api/status`` → ``("api", "status")``."""
    return tuple(path.split("/", 3)[1:3])


def _leaf_paths(route: BaseRoute, prefix: str = "") -> Iterator[tuple[BaseRoute, str | None]]:
    """Each route served through ``route`` with its full path template. Read from the include prefixes rather than
    FastAPI's effective route contexts, which compile every route's handler (a second of CPU for this app)."""
    if isinstance(route, _IncludedRouter):
        prefix += route.include_context.prefix
        for child in route.original_router.routes:
            yield from _leaf_paths(child, prefix)
        return
    path = getattr(route, "path", None)
    yield route, prefix + path if isinstance(path, str) else None


def _route_keys(route: BaseRoute) -> set[Key]:
    keys: set[Key] = set()
    for leaf, path in _leaf_paths(route):
        key = path_key(path) if path is not None and path.startswith("/") else WILDCARD
        if isinstance(leaf, (Mount, Host)) or any("{" in segment for segment in key):
            key = WILDCARD
        keys.add(key)
    return keys or {WILDCARD}


def build_index(routes: Sequence[BaseRoute]) -> tuple[dict[Key, list[BaseRoute]], list[BaseRoute]]:
    """Candidates per key, and the candidates of a key no route names (the wildcard routes only)."""
    keys_of = [(route, _route_keys(route)) for route in routes]
    named = set().union(*(keys for _, keys in keys_of)) - {WILDCARD}
    index = {key: [route for route, keys in keys_of if key in keys or WILDCARD in keys] for key in named}
    return index, [route for route, keys in keys_of if WILDCARD in keys]


class PrefixDispatch:
    """The app router's entry point (``router.middleware_stack``), with FastAPI's own matching loop run over the
    candidates of the request's key."""

    def __init__(self, router: APIRouter, fallback: ASGIApp) -> None:
        self.router = router
        self.fallback = fallback
        self._version: int | None = None
        self._index: dict[Key, list[BaseRoute]] = {}
        self._wildcards: list[BaseRoute] = []

    def candidates(self, path: str) -> list[BaseRoute]:
        # The app router's own version (FastAPI's recursive one walks every router: 30 µs per request). Areas
        # are complete before they are included; a route included at the top level later rebuilds the index.
        version = self.router._routes_version
        if version != self._version:
            self._index, self._wildcards = build_index(self.router.routes)
            self._version = version
        return self._index.get(path_key(path), self._wildcards)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.fallback(scope, receive, send)
            return
        # What APIRouter.app does before its loop.
        _apply_router_form_limits(scope, self.router.form_limits)
        scope.setdefault("router", self.router)
        partial: tuple[BaseRoute, Scope] | None = None
        for route in self.candidates(get_route_path(scope)):
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                await self._handle(route, child_scope, scope, receive, send)
                return
            if match == Match.PARTIAL and partial is None:
                partial = (route, child_scope)
        if partial is not None:
            await self._handle(*partial, scope, receive, send)
            return
        await self.fallback(scope, receive, send)

    async def _handle(self, route: BaseRoute, child_scope: Scope, scope: Scope, receive: Receive,
                      send: Send) -> None:
        # What APIRouter.app does with the route it chose: a plain route (/openapi.json, /docs) names itself in the
        # scope (the request log and metrics read it), an API route's child scope names the route it matched.
        scope["route"] = route
        _update_scope(scope, child_scope)
        _route_selected(scope=scope, path=getattr(route, "path_format", None), mount=isinstance(route, Mount))
        await route.handle(scope, receive, send)


def install_prefix_dispatch(app: FastAPI) -> None:
    router = app.router
    router.middleware_stack = PrefixDispatch(router, router.middleware_stack)
