"""Status of long work turned into a background task (``GET /api/jobs/{id}``)."""

from __future__ import annotations

import uuid

from fastapi import Request
from fastapi.responses import FileResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.core.tableaux import XLSX_MEDIA_TYPE
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

router = area_router("/api/jobs", "Logs & Monitoring")


@router.get("/{id}", response_model=TacheResponse, responses=problems(404), summary="Suivre une tâche de fond",
            description="Une requête longue (génération des cotisations d'une organisation de plus de "
                        "`UNIONFLOW_TACHE_SEUIL_COTISATIONS` membres actifs, export de plus de "
                        "`UNIONFLOW_TACHE_SEUIL_EXPORT_LIGNES` lignes) répond 202 avec `Location: "
                        "/api/jobs/{id}` et ce corps; la tâche est exécutée par le planificateur (`unionflow "
                        "worker` ou intégré). `statut` EN_ATTENTE, EN_COURS, TERMINEE ou ECHOUEE; `progression` "
                        "0 à 100; `resultat` donne le bilan à la fin. Visible par son créateur et par "
                        "SUPER_ADMIN/ADMIN seulement (404 pour les autres).")
async def get_tache(id: uuid.UUID, session: SessionDep,
                    auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TacheResponse:
    return await TacheService(session, auth).obtenir(id)


@router.get("/{id}/fichier", response_class=FileResponse, responses={
                200: {"description": "Fichier produit par la tâche",
                      "content": {"text/csv": {"schema": {"type": "string"}},
                                  XLSX_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}},
                **problems(404)},
            summary="Télécharger le fichier d'une tâche de fond",
            description="Le fichier écrit par une tâche EXPORT TERMINEE (`lienResultat`), en pièce jointe "
                        "(`Content-Disposition: attachment`, nom daté comme l'export direct). Son créateur et "
                        "SUPER_ADMIN/ADMIN seulement; 404 pour les autres, et tant que la tâche n'est pas "
                        "terminée.")
async def get_fichier_tache(id: uuid.UUID, request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> FileResponse:
    path, filename, media_type = await TacheService(session, auth).fichier(id, request.app.state.settings)
    return FileResponse(path, media_type=media_type, filename=filename, content_disposition_type="attachment",
                        headers={"Cache-Control": "no-store"})
