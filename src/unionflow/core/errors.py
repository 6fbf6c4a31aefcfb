"""One error hierarchy, one handler: every failure leaves as RFC 9457 ``application/problem+json``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unionflow.core.logs import REQUEST_ID_HEADER, current_request_id

log = logging.getLogger("unionflow.errors")

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://unionflow.dev/problems/"


class UnionFlowError(Exception):
    status: int = 500
    slug: str = "internal-error"
    title: str = "Erreur interne du serveur"

    def __init__(self, detail: str | None = None, *, extra: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extra = extra or {}
        self.headers = headers or {}


class InvalidInput(UnionFlowError):
    status, slug, title = 400, "invalid-input", "Données invalides"


class RegleMetier(InvalidInput):
    """Input each field of which is valid alone but that breaks a rule JSON Schema cannot state: a cross-field
    rule written in the operation's description (``dateFin`` before ``dateDebut``), or a value checked against the
    editable reference table. Still 400 as the spec says; its own problem type lets a client (and the fuzz) tell
    it from a request that does not match the published schema."""

    slug, title = "regle-metier", "Règle métier non respectée"


class CaractereControle(InvalidInput):
    """A control character (NUL, U+0001 to U+001F but tab and line ends, DEL) in a text, a path or a query: never
    text a person typed, and PostgreSQL cannot store NUL. Its own problem type: the schema cannot state it on every
    string without clashing with the fields' own patterns, the API description does."""

    slug, title = "caractere-controle", "Caractère de contrôle interdit"


class InvalidState(UnionFlowError):
    """The action is not allowed in the current state of the resource (spec: 400)."""

    status, slug, title = 400, "invalid-state", "Action impossible dans l'état actuel"


class Unauthenticated(UnionFlowError):
    status, slug, title = 401, "unauthenticated", "Non authentifié"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="unionflow"'})


class InvalidToken(Unauthenticated):
    """A bearer token was presented and is not valid (expired, forged, unknown key or issuer, revoked client):
    RFC 6750 §3.1 ``error="invalid_token"``, so a client knows to get a new token rather than to log in from
    scratch. No ``error_description``: the header allows ASCII only, the French reason is in the problem body."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail)
        self.headers = {"WWW-Authenticate": 'Bearer realm="unionflow", error="invalid_token"'}


class Forbidden(UnionFlowError):
    status, slug, title = 403, "forbidden", "Accès refusé"


class NotFound(UnionFlowError):
    status, slug, title = 404, "not-found", "Ressource introuvable"


class Conflict(UnionFlowError):
    status, slug, title = 409, "conflict", "Conflit"


class MethodNotAllowed(UnionFlowError):
    status, slug, title = 405, "method-not-allowed", "Méthode non autorisée"

    def __init__(self, method: str, allowed: set[str]) -> None:
        super().__init__(f"Méthode {method} non autorisée sur cette ressource",
                         headers={"Allow": ", ".join(sorted(allowed))})


class PayloadTooLarge(UnionFlowError):
    status, slug, title = 413, "payload-too-large", "Contenu trop volumineux"


class UnprocessableIdempotency(UnionFlowError):
    status, slug, title = 422, "idempotency-key-reused", "Clé d'idempotence déjà utilisée"


class TooManyRequests(UnionFlowError):
    status, slug, title = 429, "too-many-requests", "Trop de tentatives"


class UpstreamError(UnionFlowError):
    status, slug, title = 502, "upstream-error", "Service tiers en erreur"


class UpstreamUnavailable(UnionFlowError):
    status, slug, title = 503, "upstream-unavailable", "Service tiers indisponible"


# Seconds a client should wait before retrying a 503 when nothing better is known (settings override it for the
# database: ``database_retry_after_seconds``).
RETRY_AFTER_SECONDS = 5


class ServiceUnavailable(UnionFlowError):
    """The database cannot answer now (down, frozen, restarting) or the service is in maintenance: retry later."""

    status, slug, title = 503, "service-unavailable", "Service temporairement indisponible"

    def __init__(self, detail: str | None = None, *, retry_after: int = RETRY_AFTER_SECONDS,
                 slug: str | None = None) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})
        if slug:
            self.slug = slug


# Driver errors that mean "the database is not reachable or did not answer in time", as opposed to a bug in a
# query (asyncpg's own InterfaceError also covers misuse; a closed connection is caught as ``connection_invalidated``).
# Names, not imports: asyncpg is optional on SQLite installations.
_UNAVAILABLE_NAMES = frozenset({
    "PostgresConnectionError", "ConnectionDoesNotExistError", "ConnectionFailureError", "CannotConnectNowError",
    "TooManyConnectionsError", "AdminShutdownError", "CrashShutdownError", "QueryCanceledError",
})
_SQLITE_UNAVAILABLE = ("database is locked", "database table is locked", "unable to open database", "disk i/o error")


def database_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) says the database is down, unreachable, frozen or too busy."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, TimeoutError | ConnectionError | sa_exc.TimeoutError | sa_exc.DisconnectionError):
            return True
        if isinstance(current, OSError) and not isinstance(current, FileNotFoundError | PermissionError):
            return True
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        if type(current).__name__ in _UNAVAILABLE_NAMES and type(current).__module__.startswith("asyncpg"):
            return True
        if type(current).__module__ == "sqlite3" and any(m in str(current).lower() for m in _SQLITE_UNAVAILABLE):
            return True
        current = current.__cause__  # not __context__: an unrelated error raised while handling a timeout is a bug
    return False


def problem(status: int, title: str, detail: str, slug: str, instance: str | None = None,
            headers: dict[str, str] | None = None, *, request_id: str | None = None, **extra: Any) -> JSONResponse:
    """``requestId`` names the request's log lines and audit entries (GET /api/logs?requestId=…)."""
    body: dict[str, Any] = {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail}
    if instance:
        body["instance"] = instance
    body.update(extra)
    request_id = request_id or current_request_id()
    if request_id:
        body["requestId"] = request_id
        headers = {**(headers or {}), REQUEST_ID_HEADER: request_id}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


_HTTP_TITLES = {
    400: ("invalid-input", "Données invalides"),
    401: ("unauthenticated", "Non authentifié"),
    403: ("forbidden", "Accès refusé"),
    404: ("not-found", "Ressource introuvable"),
    405: ("method-not-allowed", "Méthode non autorisée"),
    409: ("conflict", "Conflit"),
    413: ("payload-too-large", "Contenu trop volumineux"),
    415: ("unsupported-media-type", "Type de contenu non supporté"),
}


# Pydantic's error types in French: the reason after the field name ("montant: doit être supérieur à 0").
_MESSAGES = {
    "missing": "champ obligatoire",
    "extra_forbidden": "champ inconnu",
    "null_refuse": "ne peut pas être null (omettre le champ pour le garder)",
    "string_type": "doit être une chaîne de caractères",
    "string_too_short": "doit contenir au moins {min_length} caractère(s)",
    "string_too_long": "doit contenir au plus {max_length} caractère(s)",
    "string_pattern_mismatch": "ne respecte pas le format attendu ({pattern})",
    "string_unicode": "doit être une chaîne Unicode valide",
    "int_type": "doit être un nombre entier",
    "int_parsing": "doit être un nombre entier",
    "int_from_float": "doit être un nombre entier (sans décimales)",
    "float_type": "doit être un nombre",
    "float_parsing": "doit être un nombre",
    "finite_number": "doit être un nombre fini",
    "bool_type": "doit être un booléen (true ou false)",
    "bool_parsing": "doit être un booléen (true ou false)",
    "greater_than": "doit être supérieur à {gt}",
    "greater_than_equal": "doit être supérieur ou égal à {ge}",
    "less_than": "doit être inférieur à {lt}",
    "less_than_equal": "doit être inférieur ou égal à {le}",
    "multiple_of": "doit être un multiple de {multiple_of}",
    "decimal_type": "doit être un nombre décimal",
    "decimal_parsing": "doit être un nombre décimal (ex. \"2500.00\")",
    "decimal_max_digits": "au plus {max_digits} chiffres",
    "decimal_max_places": "au plus {decimal_places} décimales",
    "decimal_whole_digits": "au plus {whole_digits} chiffres avant la virgule",
    "enum": "valeur non autorisée (attendu: {expected})",
    "literal_error": "valeur non autorisée (attendu: {expected})",
    "date_type": "doit être une date ISO 8601 (AAAA-MM-JJ)",
    "date_parsing": "doit être une date ISO 8601 (AAAA-MM-JJ)",
    "date_from_datetime_parsing": "doit être une date ISO 8601 (AAAA-MM-JJ)",
    "date_from_datetime_inexact": "doit être une date sans heure",
    "date_past": "doit être une date passée",
    "date_future": "doit être une date future",
    "datetime_type": "doit être une date-heure ISO 8601",
    "datetime_parsing": "doit être une date-heure ISO 8601 (ex. 2025-01-31T10:00:00Z)",
    "datetime_from_date_parsing": "doit être une date-heure ISO 8601 (ex. 2025-01-31T10:00:00Z)",
    "datetime_object_invalid": "date-heure invalide",
    "timezone_aware": "doit indiquer un fuseau horaire (ex. Z ou +00:00)",
    "timezone_naive": "ne doit pas indiquer de fuseau horaire",
    "time_parsing": "doit être une heure ISO 8601 (HH:MM)",
    "time_type": "doit être une heure ISO 8601 (HH:MM)",
    "uuid_type": "doit être un identifiant UUID",
    "uuid_parsing": "doit être un identifiant UUID",
    "uuid_version": "version d'UUID non acceptée",
    "url_parsing": "doit être une URL valide",
    "url_type": "doit être une URL valide",
    "url_scheme": "schéma d'URL non accepté",
    "url_too_long": "URL trop longue",
    "json_invalid": "JSON invalide",
    "json_type": "doit être du JSON",
    "model_type": "doit être un objet JSON",
    "model_attributes_type": "doit être un objet JSON",
    "dict_type": "doit être un objet JSON",
    "list_type": "doit être une liste",
    "set_type": "doit être une liste sans doublons",
    "tuple_type": "doit être une liste",
    "too_short": "doit contenir au moins {min_length} élément(s)",
    "too_long": "doit contenir au plus {max_length} élément(s)",
    "bytes_type": "doit être un contenu binaire",
    "bytes_too_short": "contenu trop court",
    "bytes_too_long": "contenu trop long",
    "union_tag_invalid": "valeur non autorisée",
    "is_instance_of": "type non accepté",
    "none_required": "doit être null",
    "frozen_field": "ne peut pas être modifié",
}
_EMAIL_HINT = "email address"


def _french(err: dict[str, Any]) -> str:
    """The reason in French. Our own validators already speak French (``ValueError("...")``), pydantic's
    prefix is dropped; e-mail-validator's English reasons become one French sentence."""
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    message = str(err.get("msg", "invalide"))
    if kind in ("value_error", "assertion_error"):
        if _EMAIL_HINT in message:
            return "adresse e-mail invalide"
        for prefix in ("Value error, ", "Assertion failed, "):
            message = message.removeprefix(prefix)
        return message
    template = _MESSAGES.get(kind)
    if template is None or (kind.startswith("decimal") and not message.startswith(("Decimal", "Input"))):
        return message  # core.schemas' money errors: already French, and they state the limit
    try:
        return template.format(**{k: str(v).replace(" or ", " ou ") for k, v in ctx.items()})
    except (KeyError, IndexError):
        # Our own errors of pydantic's types carry their French message and no context ("au plus deux
        # décimales"): the message, which states the limit, rather than the template cut before it ("au plus").
        return message


def _json_position(document: Any, position: Any) -> str:
    """Line and column (from 1) of a character offset in the body FastAPI could not parse."""
    if not isinstance(position, int):
        return ""
    text = document.decode("utf-8", errors="replace") if isinstance(document, bytes) else str(document or "")
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return f"ligne {line}, colonne {column}"


def _field_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    fields = []
    for err in exc.errors():
        if err.get("type") == "json_invalid":
            # FastAPI puts the character offset where the field would be ("body", 12): say where, not "12".
            where = _json_position(exc.body, (err.get("loc") or ("body", None))[-1])
            fields.append({"field": "body", "type": "json_invalid",
                           "message": f"JSON invalide ({where})" if where else "JSON invalide"})
            continue
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header", "form")]
        name = ".".join(loc) or str(err.get("loc", ["body"])[0])
        kind = str(err.get("type", ""))
        message = _french(err)
        if kind == "extra_forbidden":
            message = f"champ inconnu: {name}"
        fields.append({"field": name, "message": message, "type": kind})
    return fields


def invalid_input(exc: RequestValidationError) -> InvalidInput:
    """The French 400 of input that does not match its schema, with one line per field in ``errors``: a problem
    of type ``regle-metier`` when only cross-field rules failed (core.schemas.regle_metier: every field matches
    the schema), ``caractere-controle`` when only control characters did, ``invalid-input`` otherwise."""
    fields = _field_errors(exc)
    detail = "; ".join(f"{f['field']}: {f['message']}" for f in fields) or "Requête invalide"
    extra: dict[str, Any] = {"errors": fields}
    if fields and all(f["type"] == "regle_metier" for f in fields):
        return RegleMetier("; ".join(f["message"] for f in fields), extra=extra)
    if fields and all(f["type"] == "caractere_controle" for f in fields):
        return CaractereControle(detail, extra=extra)
    return InvalidInput(detail, extra=extra)


def schema_error(exc: ValidationError) -> InvalidInput:
    """The 400 the API answers when the same body fails its schema: pydantic's errors placed in the body, as
    FastAPI places them, then ``invalid_input``. For a body validated outside a route (a console form)."""
    errors = [{**err, "loc": ("body", *err.get("loc", ()))} for err in exc.errors()]
    return invalid_input(RequestValidationError(errors))


def _method_not_allowed(request: Request, allowed: set[str]) -> Response:
    exc = MethodNotAllowed(request.method, allowed)
    return problem(exc.status, exc.title, exc.detail, exc.slug, request.url.path, exc.headers)


def install_error_handlers(app: FastAPI, allowed_methods: Callable[[FastAPI, str], set[str]]) -> None:
    """``allowed_methods`` (``core.routing.allowed_methods``) gives a 405's ``Allow``; passed in by the app
    factory because routing raises this module's errors."""

    async def on_domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UnionFlowError)
        return problem(exc.status, exc.title, exc.detail, exc.slug, request.url.path, exc.headers, **exc.extra)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        error = invalid_input(exc)
        return problem(400, error.title, error.detail, error.slug, request.url.path, **error.extra)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 405:
            return _method_not_allowed(request, allowed_methods(request.app, request.url.path))
        slug, title = _HTTP_TITLES.get(exc.status_code, ("http-error", "Erreur"))
        detail = exc.detail if isinstance(exc.detail, str) else title
        if exc.status_code == 404 and detail == "Not Found":  # Starlette's router: no route at this address
            detail = "Aucune ressource à cette adresse."
        elif exc.status_code in HTTPStatus._value2member_map_ and detail == HTTPStatus(exc.status_code).phrase:
            detail = title  # another of Starlette's English defaults
        return problem(exc.status_code, title, detail, slug, request.url.path, dict(exc.headers or {}))

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        if database_unavailable(exc):
            log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
            retry_after = getattr(request.app.state.settings, "database_retry_after_seconds", RETRY_AFTER_SECONDS)
            return problem(503, ServiceUnavailable.title, "Base de données momentanément indisponible, réessayer "
                           "plus tard.", "database-unavailable", request.url.path, {"Retry-After": str(retry_after)},
                           request_id=_request_id(request))
        log.exception("unhandled error on %s %s", request.method, request.url.path,
                      extra={"request_id": _request_id(request)})
        return problem(500, "Erreur interne du serveur", "Une erreur inattendue est survenue.",
                       "internal-error", request.url.path, request_id=_request_id(request))

    app.add_exception_handler(UnionFlowError, on_domain)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    # Driver and pool errors are handled here, inside the app, like domain errors: the generic ``Exception``
    # handler runs in Starlette's outermost middleware, which re-raises after answering (a reset connection for
    # some servers). What is not an outage still answers 500 through on_unexpected.
    for kind in (sa_exc.SQLAlchemyError, OSError, TimeoutError):
        app.add_exception_handler(kind, on_unexpected)
    # Any other error a route raises (asyncpg's CannotConnectNowError, a bug) is answered by the innermost
    # middleware (install_error_handlers runs before any other middleware is added), and stops there: the
    # ``Exception`` handler below is Starlette's outermost middleware, which re-raises after answering, and uvicorn
    # then closes the kept-alive connection. It stays for errors of the middlewares themselves.
    app.add_middleware(AnswerUnexpectedErrors, handler=on_unexpected)
    app.add_exception_handler(Exception, on_unexpected)


class AnswerUnexpectedErrors:
    def __init__(self, app: ASGIApp, handler: Callable[[Request, Exception], Awaitable[Response]]) -> None:
        self.app = app
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:
            if started:  # nothing else can be answered: the server must end this response
                raise
            response = await self.handler(Request(scope, receive), exc)
            await response(scope, receive, send)
