"""Area routers, and the guarantee that 401/403 come before 400 even for unparsable bodies."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from urllib.parse import unquote_plus

from fastapi import APIRouter, FastAPI, Request, Response, params
from fastapi._compat import ModelField
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute

from unionflow.core.auth import Authorizer, authenticate, bearer_scheme
from unionflow.core.errors import Forbidden, MethodNotAllowed
from unionflow.core.middleware import control_character, form_control_location
from unionflow.core.replica import ERREURS as ERREURS_REPLICA
from unionflow.core.replica import repris_sur_le_primaire
from unionflow.core.schemas import ISO_DATE_RE, scalar_kinds

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
    # Not anonymous: the gateway's shared secret and address allow-list (ussd.router.appel_passerelle).
    ("POST", "/api/ussd/callback"),
    # Not anonymous: the SMS gateway's secret and address allow-list, the same mechanism (auth/passerelles.py).
    ("POST", "/api/sms/entrant"),
    ("POST", "/api/sms/accuses"),
    # Whoever holds a receipt may check it; the key printed in its QR code stands in for a login.
    ("GET", "/api/recus/verifier/{numero}"),
    # Whoever knows a dues' payment code may pay it (a relative abroad): initials and amount only; rate-limited.
    ("GET", "/api/paiements/par-code"),
    ("GET", "/api/paiements/par-code/{code}"),
    ("POST", "/api/paiements/par-code/{code}/wave"),
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


def allowed_methods(app: FastAPI, path: str) -> set[str]:
    """Methods of every route serving this concrete path. Starlette's 405 lists only the first route that
    matched, and ``PUT /api/adhesions/stats`` matches ``PUT /api/adhesions/{id}`` before it fails on the UUID;
    both must answer 405 with the resource's real ``Allow`` (RFC 9110 §15.5.6)."""
    table = getattr(app.state, "route_table", None)
    if table is None:
        table = []
        for info in api_routes(app):
            uuid_params = {f.alias for f in info.route.dependant.path_params
                           if uuid.UUID in scalar_kinds(f.field_info.annotation)}
            regex = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(info.path)) + "$")
            table.append((regex, uuid_params, info.methods))
        app.state.route_table = table
    static: set[str] = set()
    templated: set[str] = set()
    for regex, uuid_params, methods in table:
        match = regex.match(path)
        if match and all(_is_uuid(match.group(name)) for name in uuid_params):
            (templated if match.groupdict() else static).update(methods)
    # A literal path (/api/admin/users/roles) is its own resource, whatever a template's text id would take.
    return static or templated


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def find_authorizer(dependant: Dependant) -> Authorizer | None:
    for dep in dependant.dependencies:
        if isinstance(dep.call, Authorizer):
            return dep.call
        found = find_authorizer(dep)
        if found is not None:
            return found
    return None


_BOOLEANS = frozenset({"true", "false"})


def _query_params(dependant: Dependant) -> list[ModelField]:
    found = list(dependant.query_params)
    for dep in dependant.dependencies:
        found += _query_params(dep)
    return found


def strict_query(dependant: Dependant) -> Callable[[Request], None] | None:
    """Query strings are text, and pydantic's lax parsing reads ``actif=1``/``yes`` as true and ``dateFin=0`` as
    1970-01-01. The API takes booleans as ``true``/``false`` and dates as ISO 8601 only; this check runs
    before the parameters are parsed, for every route, from the declared parameter types."""
    booleans, dates = [], []
    for field in _query_params(dependant):
        kinds = scalar_kinds(field.field_info.annotation) - {type(None)}
        if kinds == {bool}:
            booleans.append(field.alias)
        elif kinds and kinds <= {date, datetime}:
            dates.append(field.alias)
    if not booleans and not dates:
        return None

    def check(request: Request) -> None:
        errors: list[dict[str, Any]] = []
        for name in booleans:
            errors += [{"type": "bool_parsing", "loc": ("query", name), "msg": "booléen attendu", "input": value}
                       for value in request.query_params.getlist(name) if value not in _BOOLEANS]
        for name in dates:
            errors += [{"type": "date_parsing", "loc": ("query", name), "msg": "date attendue", "input": value}
                       for value in request.query_params.getlist(name) if not ISO_DATE_RE.match(value)]
        if errors:
            raise RequestValidationError(errors)

    return check


_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
# A JSON string escape of a forbidden control character (core.middleware.CONTROL_CHARACTERS), its backslash not
# itself escaped: \u000c or the short forms \b and \f (U+0008, U+000C) that JSON also allows; DEL may also come raw
# (JSON allows it unescaped), the other raw ones are invalid JSON already.
_ESCAPED_CONTROL = re.compile(rb"(?<!\\)(?:\\\\)*\\(?:u00(?:0[0-8bcef]|1[0-9a-f]|7f)|[bf])|\x7f", re.IGNORECASE)


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


def body_kind(dependant: Dependant) -> str | None:
    """``json`` or ``form`` for a route FastAPI parses a body for, None for one that reads it itself."""
    if not dependant.body_params:
        return None
    return "form" if any(isinstance(f.field_info, params.Form) for f in dependant.body_params) else "json"


def _control_location(value: Any, path: tuple[str | int, ...] = ()) -> tuple[tuple[str | int, ...], str] | None:
    """Where the first forbidden control character of a parsed JSON document is (keys included)."""
    if isinstance(value, str):
        character = control_character(value)
        return (path, character) if character else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str) and (character := control_character(key)):
            return (*path, key), character
        if (found := _control_location(item, (*path, key))) is not None:
            return found
    return None


async def check_body(request: Request, kind: str) -> None:
    """415 for a body of another media type than the route reads; 400 for a control character in it."""
    if request.headers.get("content-length", "0") == "0" and "transfer-encoding" not in request.headers:
        return
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not (_is_json(media_type) if kind == "json" else media_type in _FORM_TYPES):
        expected = "application/json" if kind == "json" else "application/x-www-form-urlencoded"
        raise HTTPException(415, detail=f"Type de contenu {media_type or 'absent'} non supporté: cette opération "
                                        f"attend {expected}.")
    if media_type == "multipart/form-data":
        # Parsed once here: FastAPI reads the same form (Starlette keeps it on the request) afterwards.
        in_form = form_control_location(await request.form())
        if in_form is not None:
            raise RequestValidationError([{"type": "caractere_controle", "loc": in_form[0], "input": None,
                                           "msg": f"caractère de contrôle interdit ({in_form[1]})"}])
        return
    raw = await request.body()  # kept by the request: FastAPI parses the same bytes afterwards
    if kind == "form":
        found = control_character(unquote_plus(raw.decode("latin-1"), errors="replace"))
        location: tuple[tuple[str | int, ...], str] | None = (("body",), found) if found else None
    elif _ESCAPED_CONTROL.search(raw):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return  # FastAPI reports where the JSON is invalid
        found_in = _control_location(parsed)
        location = (("body", *found_in[0]), found_in[1]) if found_in else None
    else:
        location = None
    if location is not None:
        raise RequestValidationError([{"type": "caractere_controle", "loc": location[0], "input": None,
                                       "msg": f"caractère de contrôle interdit ({location[1]})"}])


class GuardedRoute(APIRoute):
    """FastAPI parses JSON and form bodies before running dependencies, so a malformed body would answer
    400 before the caller is authenticated. This route re-orders that: 401, then 403, then 400."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        parse = super().get_route_handler()
        check = strict_query(self.dependant)
        kind = body_kind(self.dependant)
        uuid_params = {f.alias for f in self.dependant.path_params
                       if uuid.UUID in scalar_kinds(f.field_info.annotation)}

        async def handler(request: Request) -> Response:
            if any(not _is_uuid(str(request.path_params.get(name, ""))) for name in uuid_params):
                # Only the template's shape matched (PUT /api/adhesions/stats against PUT /api/adhesions/{id}):
                # if the literal path is another resource, that resource does not support this method.
                allowed = allowed_methods(request.app, request.url.path)
                if allowed and request.method not in allowed:
                    raise MethodNotAllowed(request.method, allowed)
            if check is not None:
                check(request)
            if kind is not None:
                await check_body(request, kind)
            try:
                return await parse(request)
            except ERREURS_REPLICA as exc:
                # The replica failed under a read route (core/replica.py): once more, on the primary. Only reads
                # take a replica session, and nothing was sent yet.
                if not repris_sur_le_primaire(request, exc):
                    raise
                return await parse(request)

        authorizer = find_authorizer(self.dependant)
        if authorizer is None:
            return handler

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except (RequestValidationError, HTTPException):
                if getattr(request.state, "auth_context", None) is None:
                    context = await authenticate(request, await bearer_scheme(request))
                    if not authorizer.role_set.allows(context.roles):
                        raise Forbidden("Rôle insuffisant pour cette opération") from None
                raise

        return guarded


def area_router(prefix: str, tag: str) -> APIRouter:
    return APIRouter(prefix=prefix, tags=[tag], route_class=GuardedRoute)
