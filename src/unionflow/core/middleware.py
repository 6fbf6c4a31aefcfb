"""Outermost request wrapper: the request id (accepted from ``X-Request-ID`` or generated, echoed back), one
structured log line per request, and the request metrics. Plain ASGI, so streaming responses are not buffered."""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unionflow.core import metrics
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
