"""Application factory. Every router is mounted here; authentication is required unless a route is on
``core.routing.PUBLIC_ROUTES``."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware

from unionflow import __version__
from unionflow.auth import keys
from unionflow.auth.router import router as auth_router
from unionflow.config import Settings, get_settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.core.errors import install_error_handlers
from unionflow.core.openapi import install_openapi
from unionflow.core.security import build_verifier
from unionflow.monitoring.router import router as monitoring_router
from unionflow.organisations.router import router as organisations_router
from unionflow.sauvegardes.router import router as sauvegardes_router
from unionflow.status.router import probes as status_probes
from unionflow.status.router import router as status_router

ROUTERS: list[APIRouter] = [
    auth_router,
    status_probes,
    status_router,
    organisations_router,
    monitoring_router,
    sauvegardes_router,
]

DESCRIPTION = """API de gestion d'une union d'organisations (fédérations, associations, mutuelles):
membres, adhésions, cotisations, paiements Wave, événements, documents.

Conventions: JSON camelCase, identifiants UUID, dates ISO 8601 avec fuseau, montants décimaux (XOF par défaut).
Pagination `page` (à partir de 0) et `size` (1 à 200). Erreurs RFC 9457 `application/problem+json`.
En-têtes `X-Active-Organisation-Id` et `X-Active-Role`: voir docs/authorization.md."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = app.state.engine
        async with app.state.sessionmaker() as session:
            await keys.ensure_signing_key(session)
            await session.commit()
        yield
        await engine.dispose()

    app = FastAPI(title="UnionFlow — Union Management API", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.settings = settings
    app.state.engine = create_engine(settings)
    app.state.sessionmaker = create_sessionmaker(app.state.engine)
    app.state.token_verifier = build_verifier(settings, keys.jwks_loader(app.state.sessionmaker))
    app.state.started_at = time.monotonic()

    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_credentials=False,
                           allow_methods=["*"], allow_headers=["*"], expose_headers=["X-Total-Count", "Location"])
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    install_openapi(app)
    logging.getLogger("unionflow").setLevel(logging.INFO)
    return app
