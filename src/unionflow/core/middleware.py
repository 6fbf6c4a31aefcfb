"""Outermost request wrapper: the request id (accepted from ``X-Request-ID`` or generated, echoed back), one
structured log line per request, and the request metrics; inside it, the guard on request targets and body sizes.
Plain ASGI, so streaming responses are not buffered."""

from __future__ import annotations

import logging
import re
import time
from typing import Any
from urllib.parse import unquote_plus

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unionflow.core import metrics
from unionflow.core.errors import CaractereControle, problem
from unionflow.core.logs import REQUEST_ID_HEADER, accept_request_id, request_id_var

log = logging.getLogger("unionflow.requests")
_HEADER = REQUEST_ID_HEADER.lower().encode()
UNMATCHED = "<non-routée>"  # one label for every unknown path: scanners must not explode the metric series


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp, engine: Any = None) -> None:
        self.app = app
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = accept_request_id(_header(scope, _HEADER))
        # The error handlers read it from the request state (the 500 handler runs outside this middleware).
        scope.setdefault("state", {})["request_id"] = request_id
        token = request_id_var.set(request_id)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", ()))
                if not any(k.lower() == _HEADER for k, _ in headers):
                    headers.append((_HEADER, request_id.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = getattr(scope.get("route"), "path_format", None) or UNMATCHED
            method = scope["method"]
            auth = scope["state"].get("auth_context")
            log.info("%s %s %s", method, route, status, extra={
                "method": method, "route": route, "status": status, "durationMs": round(seconds * 1000, 2),
                "userSub": getattr(auth, "sub", None),
                "organisationId": str(auth.active_organisation_id)
                if getattr(auth, "active_organisation_id", None) else None,
            })
            metrics.observe_request(method, route, status, seconds)
            if self.engine is not None:
                metrics.observe_pool(self.engine)
            request_id_var.reset(token)


# C0 control characters but tab, line feed and carriage return, and DEL: never text a person typed. PostgreSQL
# refuses NUL in text (a 500 before this guard), SQLite stores it: both refuse them here, with the same 400.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def control_character(text: str) -> str | None:
    """The first forbidden control character of ``text`` as ``U+0000``, or None."""
    found = CONTROL_CHARACTERS.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def form_control_location(form: FormData) -> tuple[tuple[str | int, ...], str] | None:
    """The first forbidden control character of a form (API routes, console pages), in a field name or a text
    field's value; a file part is the route's to read (its contents, and its name, sanitized where it is kept)."""
    for name, value in form.multi_items():
        text = value if isinstance(value, str) else ""
        if (character := control_character(name) or control_character(text)) is not None:
            return ("body", name), character
    return None


def _content_type(scope: Scope) -> str:
    return (_header(scope, b"content-type") or "").split(";")[0].strip().lower()


class RequestGuardMiddleware:
    """Before any route runs: control characters in the path or the query string are refused (400), and a body
    that is not an upload (``multipart/form-data``, which the upload routes bound themselves) is limited to
    ``max_body_bytes``: a larger ``Content-Length`` is answered 413 at once, a longer chunked body is stopped at
    the chunk that crosses the limit (413), never read whole."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = unquote_plus(scope.get("query_string", b"").decode("latin-1"), errors="replace")
        for where, text in (("chemin", scope.get("path", "")), ("paramètres de requête", query)):
            if (character := control_character(text)) is not None:
                response = problem(400, CaractereControle.title, f"Caractère de contrôle interdit ({character}) "
                                   f"dans le {where} de la requête.", CaractereControle.slug, scope.get("path"))
                await response(scope, receive, send)
                return
        if _content_type(scope) == "multipart/form-data":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        detail = f"Corps de requête trop volumineux (au plus {limit} octets)."
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            response = problem(413, "Contenu trop volumineux", detail, "payload-too-large", scope.get("path"))
            await response(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Raised where the route reads its body: FastAPI lets HTTPException through, the error
                    # handler answers the problem (after 401/403, as for any invalid body).
                    raise HTTPException(413, detail=detail)
            return message

        await self.app(scope, limited, send)
