"""Liveness/readiness probes (public, for orchestrators) and the Status area (authenticated)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from sqlalchemy import text
from starlette.responses import JSONResponse

from unionflow import __version__
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import autocommit_connection, request_bind
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import GuardedRoute, area_router
from unionflow.core.schemas import EtatSante, OutputModel

SELECT_1 = text("SELECT 1")

probes = APIRouter(tags=["Status"], route_class=GuardedRoute)
router = area_router("/api/status", "Status")


class StatusResponse(OutputModel):
    status: EtatSante
    version: str
    uptime_seconds: int
    database: EtatSante
    database_backend: str


async def _database_state(request: Request) -> str:
    # A plain autocommit connection: an ORM session would add BEGIN/COMMIT around the probe.
    try:
        async with autocommit_connection(request_bind(request)) as connection:
            await connection.execute(SELECT_1)
        return "UP"
    except Exception:
        return "DOWN"


@probes.get("/health/live", summary="Sonde de vivacité", include_in_schema=True,
            description="200 `{\"status\": \"UP\"}` tant que le processus répond, sans toucher la base: un "
                        "orchestrateur ne redémarre pas le service pour une base indisponible. Public.")
async def live() -> dict[str, str]:
    return {"status": "UP"}


@probes.get("/health/ready", summary="Sonde de disponibilité (vérifie la base de données)",
            description="200 quand la base répond, 503 sinon (`database`: UP ou DOWN): un répartiteur cesse d'envoyer "
                        "des requêtes à une instance qui ne peut pas les servir. Public.")
async def ready(request: Request) -> JSONResponse:
    state = await _database_state(request)
    return JSONResponse({"status": state, "database": state}, status_code=200 if state == "UP" else 503)


@router.get("", response_model=StatusResponse, summary="État du serveur: version, disponibilité, base")
async def status(request: Request, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> StatusResponse:
    state = await _database_state(request)
    started: float = request.app.state.started_at
    return StatusResponse(status="UP" if state == "UP" else "DEGRADED", version=__version__,
                          uptime_seconds=int(time.monotonic() - started), database=state,
                          database_backend=request_bind(request).dialect.name)
