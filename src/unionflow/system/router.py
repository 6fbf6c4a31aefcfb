from __future__ import annotations

from fastapi import Request

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.roles import RS_CONF
from unionflow.core.routing import area_router
from unionflow.system.schemas import SystemeResponse
from unionflow.system.service import SystemeService

router = area_router("/api/systeme", "Système")


@router.get("/informations", response_model=SystemeResponse, summary="Informations sur l'installation",
            description="Version, schéma de base appliqué (révisions Alembic), composants configurés (fournisseurs "
                        "d'identité, Wave, Redis, stockage) et limites effectives. Les secrets ne sont jamais "
                        "renvoyés: seul le fait qu'ils soient configurés l'est.")
async def informations(request: Request, session: SessionDep,
                       auth: AuthContext = authorize(RS_CONF)) -> SystemeResponse:
    return await SystemeService(session, request.app.state.settings).informations()
