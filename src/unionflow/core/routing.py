"""Area routers, and the guarantee that 401/403 come before 400 even for unparsable bodies."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute

from unionflow.core.auth import Authorizer, authenticate, bearer_scheme
from unionflow.core.db import read_only_session
from unionflow.core.errors import Forbidden

# Routes reachable without a bearer token. Anything else must name a role set (tests/test_routes.py).
PUBLIC_ROUTES: frozenset[tuple[str, str]] = frozenset({
    ("POST", "/api/auth/token"),
    ("GET", "/api/auth/jwks"),
    ("GET", "/.well-known/openid-configuration"),
    ("GET", "/health/live"),
    ("GET", "/health/ready"),
    ("GET", "/api/evenements/publics"),
    ("GET", "/api/evenements/test"),
    ("POST", "/api/paiements/wave/webhook"),
    # Whoever holds a receipt may check it; the key printed in its QR code stands in for a login.
    ("GET", "/api/recus/verifier/{numero}"),
    ("POST", "/api/auth/mot-de-passe-oublie"),
    ("POST", "/api/auth/reinitialiser-mot-de-passe"),
    # Not anonymous: its own bearer token or network allowlist (monitoring.service.MetricsService).
    ("GET", "/metrics"),
})


@dataclass(frozen=True)
class RouteInfo:
    route: APIRoute
    path: str
    methods: frozenset[str]
    authorizer: Authorizer | None


def api_routes(source: FastAPI | Sequence[BaseRoute]) -> list[RouteInfo]:
    """Every API route of the app with its full path. FastAPI ≥ 0.160 keeps included routers as
    ``_IncludedRouter`` entries in ``app.routes``; its route contexts give back the routes themselves."""
    found = []
    routes = source.routes if isinstance(source, FastAPI) else source
    for context in iter_route_contexts(routes):
        original = context.original_route
        if isinstance(original, APIRoute):
            found.append(RouteInfo(original, context.path_format or original.path_format,
                                   frozenset(context.methods or original.methods or ()),
                                   find_authorizer(original.dependant)))
    return found


def find_authorizer(dependant: Dependant) -> Authorizer | None:
    for dep in dependant.dependencies:
        if isinstance(dep.call, Authorizer):
            return dep.call
        found = find_authorizer(dep)
        if found is not None:
            return found
    return None


class GuardedRoute(APIRoute):
    """FastAPI parses JSON and form bodies before running dependencies, so a malformed body would answer
    400 before the caller is authenticated. This route re-orders that: 401, then 403, then 400."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        authorizer = find_authorizer(self.dependant)
        if authorizer is None:
            return handler

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except (RequestValidationError, HTTPException):
                if getattr(request.state, "auth_context", None) is None:
                    async with read_only_session(request.app.state.sessionmaker) as session:
                        context = await authenticate(request, session, await bearer_scheme(request))
                    if not authorizer.role_set.allows(context.roles):
                        raise Forbidden("Rôle insuffisant pour cette opération") from None
                raise

        return guarded


def area_router(prefix: str, tag: str) -> APIRouter:
    return APIRouter(prefix=prefix, tags=[tag], route_class=GuardedRoute)
