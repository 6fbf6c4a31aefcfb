from __future__ import annotations

import uuid
from datetime import datetime

from fastapi import APIRouter, Depends, Query, Request, Response

from unionflow.config import Settings
from unionflow.core import metrics
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import RS_MON_READ, RS_MON_WRITE
from unionflow.core.routing import GuardedRoute, area_router
from unionflow.models.journal import NiveauJournal
from unionflow.monitoring.schemas import (
    AlerteConfigResponse,
    AlerteSystemeResponse,
    JournalSystemeResponse,
    UpdateAlerteConfigRequest,
)
from unionflow.monitoring.service import JournalService, MetricsService, MonitoringService

router = area_router("/api/alerts", "Logs & Monitoring")
logs_router = area_router("/api/logs", "Logs & Monitoring")
metrics_router = APIRouter(tags=["Logs & Monitoring"], route_class=GuardedRoute)


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


@router.get("", response_model=list[AlerteSystemeResponse], summary="Alertes système actives",
            description="Alertes ouvertes et non acquittées, les plus graves d'abord (X-Total-Count). Si la "
                        "dernière évaluation date de plus de `intervalleEvaluationSecondes`, le système est "
                        "d'abord mesuré (base, disque, échecs de connexion, erreurs d'audit, paiements Wave "
                        "bloqués, alertes LCB-FT, sauvegardes) et les alertes ouvertes, mises à jour ou "
                        "fermées: une seule alerte ouverte par code. Une alerte dont la condition disparaît "
                        "est fermée (resolue) et quitte la liste.")
async def list_alerts(request: Request, response: Response, session: SessionDep,
                      auth: AuthContext = authorize(RS_MON_READ)) -> list[AlerteSystemeResponse]:
    alerts = await MonitoringService(session, auth, _settings(request)).active_alerts()
    set_total_header(response, len(alerts))
    return alerts


@router.get("/config", response_model=AlerteConfigResponse, summary="Seuils d'alerte")
async def get_alert_config(request: Request, session: SessionDep,
                           auth: AuthContext = authorize(RS_MON_READ)) -> AlerteConfigResponse:
    return await MonitoringService(session, auth, _settings(request)).config()


@router.put("/config", response_model=AlerteConfigResponse, summary="Modifier les seuils d'alerte",
            description="Mise à jour partielle: seuls les champs envoyés changent; null et corps vide sont "
                        "refusés (400), bornes vérifiées. Les nouveaux seuils s'appliquent dès la lecture "
                        "suivante de GET /api/alerts.")
async def update_alert_config(request: Request, data: UpdateAlerteConfigRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_MON_WRITE)) -> AlerteConfigResponse:
    return await MonitoringService(session, auth, _settings(request)).modifier_config(data)


@router.post("/{id}/acknowledge", response_model=AlerteSystemeResponse, responses=problems(404),
             summary="Acquitter une alerte système",
             description="Enregistre qui et quand. Idempotent: une alerte déjà acquittée répond 200 inchangée "
                         "(le premier acquittement est conservé). Une alerte acquittée dont la condition "
                         "persiste reste ouverte (pas de doublon) mais quitte la liste; si la condition "
                         "disparaît puis revient, une nouvelle alerte est créée.")
async def acknowledge_alert(id: uuid.UUID, request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_MON_READ)) -> AlerteSystemeResponse:
    return await MonitoringService(session, auth, _settings(request)).acquitter(id)


@logs_router.get("", response_model=Page[JournalSystemeResponse], summary="Journaux système",
                 description="Lignes de journal stockées (une par requête HTTP: méthode, gabarit de route, statut, "
                             "durée, sub et organisation active; une par exécution de tâche; avertissements et "
                             "erreurs des composants), les plus récentes d'abord. Filtres: `niveau` est un seuil "
                             "(WARNING renvoie WARNING, ERROR et CRITICAL); `logger` inclut ses sous-composants "
                             "(unionflow.wave → unionflow.wave.client); `requestId` (X-Request-ID, aussi présent "
                             "dans les erreurs et le journal d'audit); `dateDebut`/`dateFin` (ISO 8601, UTC sans "
                             "fuseau). Écrites par lots hors du chemin des requêtes (quelques secondes de "
                             "délai), conservées `UNIONFLOW_LOG_RETENTION_DAYS` jours; mots de passe, jetons et "
                             "clés y sont masqués.")
async def list_logs(session: SessionDep, auth: AuthContext = authorize(RS_MON_READ),
                    params: PageParams = Depends(paging(50)),
                    niveau: NiveauJournal | None = Query(None, description="Niveau minimal"),
                    logger: str | None = Query(None, max_length=200),
                    request_id: str | None = Query(None, alias="requestId", max_length=128),
                    date_debut: datetime | None = Query(None, alias="dateDebut"),
                    date_fin: datetime | None = Query(None, alias="dateFin")) -> Page[JournalSystemeResponse]:
    return await JournalService(session, auth).lister(params, niveau=niveau, logger=logger, request_id=request_id,
                                                      date_debut=date_debut, date_fin=date_fin)


@metrics_router.get("/metrics", summary="Métriques Prometheus", response_class=Response,
                    responses={200: {"content": {metrics.CONTENT_TYPE: {}}}},
                    description="Format texte Prometheus. Sans jeton OIDC: accès avec `Authorization: Bearer "
                                "<UNIONFLOW_METRICS_TOKEN>`, ou sans jeton depuis les réseaux de "
                                "`UNIONFLOW_METRICS_ALLOWED_NETWORKS` (boucle locale par défaut); sinon 401/403. "
                                "Avec plusieurs workers, les échantillons de tous les processus sont additionnés.")
async def get_metrics(request: Request, session: SessionDep) -> Response:
    service = MetricsService(session, _settings(request))
    service.check_access(request.client.host if request.client else None, request.headers.get("authorization"))
    return Response(await service.render(), media_type=metrics.CONTENT_TYPE)
