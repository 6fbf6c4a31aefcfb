"""Security headers on every response (pure ASGI: no buffering of streamed files or exports).

``X-Content-Type-Options: nosniff`` so a browser never renders JSON or a download as something else;
``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'`` so no page of the service (the documentation's
"Authorize" dialog in particular) can be framed. A response that sets its own CSP keeps it, with
``frame-ancestors 'none'`` added when it has none.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

FRAME_ANCESTORS = "frame-ancestors 'none'"


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

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
            await send(message)

        await self.app(scope, receive, send_with_headers)
