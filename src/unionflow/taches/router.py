"""Status of long work turned into a background task (``GET /api/jobs/{id}``)."""

from __future__ import annotations

import uuid

from unionflow.core.auth import AuthContext, SessionDep, authorize
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.taches.schemas import TacheResponse
from unionflow.taches.service import TacheService

router = area_router("/api/jobs", "Logs & Monitoring")


@router.get("/{id}", response_model=TacheResponse, responses=problems(404), summary="Suivre une tâche de fond",
            description="Une requête longue (génération des cotisations d'une organisation de plus de "
                        "`UNIONFLOW_TACHE_SEUIL_COTISATIONS` membres actifs) répond 202 avec `Location: "
                        "/api/jobs/{id}` et ce corps; la tâche est exécutée par le planificateur (`unionflow "
                        "worker` ou intégré). `statut` EN_ATTENTE, EN_COURS, TERMINEE ou ECHOUEE; `progression` "
                        "0 à 100; `resultat` donne le bilan à la fin. Visible par son créateur et par "
                        "SUPER_ADMIN/ADMIN seulement (404 pour les autres).")
async def get_tache(id: uuid.UUID, session: SessionDep,
                    auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TacheResponse:
    return await TacheService(session, auth).get(id)
