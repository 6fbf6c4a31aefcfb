"""One error hierarchy, one handler: every failure leaves as RFC 9457 ``application/problem+json``."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

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


class InvalidState(UnionFlowError):
    """The action is not allowed in the current state of the resource (spec: 400)."""

    status, slug, title = 400, "invalid-state", "Action impossible dans l'état actuel"


class Unauthenticated(UnionFlowError):
    status, slug, title = 401, "unauthenticated", "Non authentifié"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="unionflow"'})


class Forbidden(UnionFlowError):
    status, slug, title = 403, "forbidden", "Accès refusé"


class NotFound(UnionFlowError):
    status, slug, title = 404, "not-found", "Ressource introuvable"


class Conflict(UnionFlowError):
    status, slug, title = 409, "conflict", "Conflit"


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


def _field_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    fields = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header", "form")]
        name = ".".join(loc) or str(err.get("loc", ["body"])[0])
        message = err.get("msg", "invalide")
        if err.get("type") == "extra_forbidden":
            message = f"champ inconnu: {name}"
        fields.append({"field": name, "message": message, "type": str(err.get("type", ""))})
    return fields


def install_error_handlers(app: FastAPI) -> None:
    async def on_domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UnionFlowError)
        return problem(exc.status, exc.title, exc.detail, exc.slug, request.url.path, exc.headers, **exc.extra)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        fields = _field_errors(exc)
        detail = "; ".join(f"{f['field']}: {f['message']}" for f in fields) or "Requête invalide"
        return problem(400, "Données invalides", detail, "invalid-input", request.url.path, errors=fields)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        slug, title = _HTTP_TITLES.get(exc.status_code, ("http-error", "Erreur"))
        detail = exc.detail if isinstance(exc.detail, str) else title
        return problem(exc.status_code, title, detail, slug, request.url.path, dict(exc.headers or {}))

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path,
                      extra={"request_id": _request_id(request)})
        return problem(500, "Erreur interne du serveur", "Une erreur inattendue est survenue.",
                       "internal-error", request.url.path, request_id=_request_id(request))

    app.add_exception_handler(UnionFlowError, on_domain)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
