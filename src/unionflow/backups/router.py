from __future__ import annotations

import uuid

from fastapi import Body, Request, Response
from fastapi.responses import JSONResponse

from unionflow.backups.schemas import (
    CreateSauvegardeRequest,
    RestaurationResponse,
    RestaurerSauvegardeRequest,
    SauvegardeConfigResponse,
    SauvegardeResponse,
    UpdateSauvegardeConfigRequest,
)
from unionflow.backups.service import SauvegardeService
from unionflow.config import Settings
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import set_total_header
from unionflow.core.roles import RS_MON_READ, RS_MON_WRITE
from unionflow.core.routing import area_router
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import accepted

router = area_router("/api/backups", "Sauvegardes")


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _service(request: Request, session: SessionDep, auth: AuthContext) -> SauvegardeService:
    return SauvegardeService(session, auth, _settings(request), request.app.state.engine)


@router.get("", response_model=list[SauvegardeResponse], summary="Lister les sauvegardes",
            description="Sauvegardes non supprimées, les plus récentes d'abord (X-Total-Count). Les fichiers ne "
                        "sont jamais servis par l'API.")
async def list_backups(request: Request, response: Response, session: SessionDep,
                       auth: AuthContext = authorize(RS_MON_READ)) -> list[SauvegardeResponse]:
    backups = await _service(request, session, auth).catalogue()
    set_total_header(response, len(backups))
    return backups


@router.post("", response_model=SauvegardeResponse, responses={**problems(503), 202: {
                 "model": TacheResponse, "description": "Confiée à une tâche de fond (voir `Location`)"}},
             summary="Créer une sauvegarde",
             description="Sauvegarde réelle: SQLite par l'API de sauvegarde en ligne, PostgreSQL par "
                         "`pg_dump -Fc` (503 si l'outil manque). Taille et SHA-256 enregistrées. Un échec de l'outil "
                         "répond 200 avec `statut: ECHOUEE` et `messageErreur` (l'échec est enregistré et audité). "
                         "Base de plus de `UNIONFLOW_TACHE_SEUIL_SAUVEGARDE_OCTETS` (256 Mio): la sauvegarde est "
                         "créée EN_COURS et terminée par une tâche de fond: 202, `Location: /api/jobs/{id}`, "
                         "`lienResultat` mène à la sauvegarde une fois la tâche TERMINEE.")
async def create_backup(request: Request, session: SessionDep,
                        data: CreateSauvegardeRequest | None = Body(None),
                        auth: AuthContext = authorize(RS_MON_WRITE)) -> SauvegardeResponse | JSONResponse:
    result = await _service(request, session, auth).creer(
        data, seuil_octets=_settings(request).tache_seuil_sauvegarde_octets)
    return accepted(result) if isinstance(result, TacheResponse) else result


@router.get("/config", response_model=SauvegardeConfigResponse, summary="Planification des sauvegardes automatiques")
async def get_backup_config(request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_MON_READ)) -> SauvegardeConfigResponse:
    return await _service(request, session, auth).config()


@router.put("/config", response_model=SauvegardeConfigResponse,
            summary="Modifier la planification des sauvegardes automatiques",
            description="Mise à jour partielle (null et corps vide refusés). `heure` HH:MM en UTC; `jourSemaine` "
                        "ISO pour HEBDOMADAIRE. Exécutée par `unionflow jobs sauvegarder` (cron), qui applique "
                        "aussi la rétention aux sauvegardes automatiques et points de restauration.")
async def update_backup_config(request: Request, data: UpdateSauvegardeConfigRequest, session: SessionDep,
                               auth: AuthContext = authorize(RS_MON_WRITE)) -> SauvegardeConfigResponse:
    return await _service(request, session, auth).modifier_config(data)


@router.post("/restore", response_model=RestaurationResponse, responses=problems(404, 409, 503),
             summary="Restaurer la base depuis une sauvegarde",
             description='`confirmation` doit valoir "RESTAURER" (400 sinon). Refusé (409) si la sauvegarde '
                         "n'est pas TERMINEE, si son empreinte SHA-256 ne correspond plus ou si elle vient d'une "
                         "autre version du schéma. Pendant toute l'opération le service est en maintenance: "
                         "les écritures de tous les processus répondent 503 avec `Retry-After`, les écritures en "
                         "cours sont terminées d'abord (503 si elles ne finissent pas à temps, 409 si une "
                         "maintenance est déjà en cours), puis un point de restauration de l'état courant est "
                         "pris. Le catalogue des sauvegardes, les configurations et le journal d'audit survivent "
                         "à la restauration; les compteurs (numéros de reçu, de membre...) ne reculent jamais, "
                         "aucun numéro déjà délivré n'est réattribué. Audit CRITICAL.")
async def restore_backup(request: Request, data: RestaurerSauvegardeRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_MON_WRITE)) -> RestaurationResponse:
    return await _service(request, session, auth).restaurer(data)


@router.post("/restore-point", response_model=SauvegardeResponse, responses=problems(503),
             summary="Créer un point de restauration",
             description="Sauvegarde de type POINT_RESTAURATION (soumise à la rétention, contrairement aux "
                         "sauvegardes manuelles).")
async def create_restore_point(request: Request, session: SessionDep,
                               auth: AuthContext = authorize(RS_MON_WRITE)) -> SauvegardeResponse:
    return await _service(request, session, auth).restore_point()


@router.get("/{id}", response_model=SauvegardeResponse, responses=problems(404), summary="Consulter une sauvegarde",
            description="Y compris une sauvegarde supprimée (historique).")
async def get_backup(id: uuid.UUID, request: Request, session: SessionDep,
                     auth: AuthContext = authorize(RS_MON_READ)) -> SauvegardeResponse:
    return await _service(request, session, auth).obtenir(id)


@router.delete("/{id}", response_model=SauvegardeResponse, responses=problems(404, 409),
               summary="Supprimer une sauvegarde",
               description="Supprime le fichier et marque la sauvegarde SUPPRIMEE (conservée pour l'historique). "
                           "409 si elle est déjà supprimée ou en cours.")
async def delete_backup(id: uuid.UUID, request: Request, session: SessionDep,
                        auth: AuthContext = authorize(RS_MON_WRITE)) -> SauvegardeResponse:
    return await _service(request, session, auth).supprimer(id)
