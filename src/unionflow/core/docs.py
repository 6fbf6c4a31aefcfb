"""Swagger UI and ReDoc served from the installed package, so the documentation works offline.

The assets come from the ``fastapi-offline`` distribution (MIT; Swagger UI Apache-2.0, ReDoc MIT), installed from
PyPI with the service; only its ``static`` folder is used. FastAPI's own pages load them from a CDN and fonts from
Google, which leaves the pages blank on a network without internet access.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

ASSETS = "/docs/assets"
DOCS = "/docs"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
REDOC = "/redoc"
# Everything the pages load comes from this service; Swagger UI's inline bootstrap script and ReDoc's blob worker
# need the two exceptions; no page may be framed (clickjacking on the "Authorize" dialog).
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'")


def install_docs(app: FastAPI) -> None:
    """Call on an app created with ``docs_url=None, redoc_url=None``."""
    assert app.openapi_url is not None
    openapi_url = app.openapi_url
    app.mount(ASSETS, StaticFiles(directory=str(files("fastapi_offline") / "static")), name="docs-assets")

    async def swagger(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = get_swagger_ui_html(
            openapi_url=root + openapi_url, title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js", swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png", oauth2_redirect_url=root + OAUTH2_REDIRECT)
        page.headers["Content-Security-Policy"] = DOCS_CSP
        return page

    async def oauth2_redirect(request: Request) -> HTMLResponse:
        page = get_swagger_ui_oauth2_redirect_html()
        page.headers["Content-Security-Policy"] = DOCS_CSP
        return page

    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = get_redoc_html(openapi_url=root + openapi_url, title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{ASSETS}/favicon.png", with_google_fonts=False)
        page.headers["Content-Security-Policy"] = DOCS_CSP
        return page

    app.add_route(DOCS, swagger, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT, oauth2_redirect, include_in_schema=False)
    app.add_route(REDOC, redoc, include_in_schema=False)
