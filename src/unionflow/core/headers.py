"""Security headers on every response (pure ASGI: no buffering of streamed files or exports).

``X-Content-Type-Options: nosniff`` so a browser never renders JSON or a download as something else;
``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'`` so no page of the service (the documentation's
"Authorize" dialog in particular) can be framed. A response that sets its own CSP keeps it, with
``frame-ancestors 'none'`` added when it has none.

``Cache-Control: no-store`` on every answer to a request that carries credentials (an ``Authorization`` header)
and on every answer of the token endpoint (RFC 6749 §5.1, with ``Pragma: no-cache``): a member's data must not
stay in the browser's cache of a shared PC nor in a proxy. A response that sets its own ``Cache-Control`` keeps
it (downloads say ``private, no-store``); public documents asked without credentials (JWKS, discovery, the
documentation's assets) are left to their own rules.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

FRAME_ANCESTORS = "frame-ancestors 'none'"
TOKEN_ENDPOINT = "/api/auth/token"


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token_endpoint = scope.get("path") == TOKEN_ENDPOINT
        no_store = token_endpoint or any(name == b"authorization" for name, _ in scope.get("headers", ()))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                csp = headers.get("Content-Security-Policy")
                if csp is None:
                    headers["Content-Security-Policy"] = FRAME_ANCESTORS
                elif "frame-ancestors" not in csp:
                    headers["Content-Security-Policy"] = f"{csp}; {FRAME_ANCESTORS}"
                if no_store and "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
                if token_endpoint:
                    headers["Pragma"] = "no-cache"
            await send(message)

        await self.app(scope, receive, send_with_headers)
