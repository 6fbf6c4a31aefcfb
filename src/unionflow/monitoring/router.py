from __future__ import annotations

import uuid

from fastapi import Request, Response

from unionflow.config import Settings
from unionflow.core.auth import AuthContext, SessionDep, authorize
from unionflow.core.openapi import problems
from unionflow.core.pagination import set_total_header
from unionflow.core.roles import RS_MON_READ, RS_MON_WRITE
from unionflow.core.routing import area_router
from unionflow.monitoring.schemas import AlertConfigResponse, SystemAlertResponse, UpdateAlertConfigRequest
from unionflow.monitoring.service import MonitoringService

router = area_router("/api/alerts", "Logs & Monitoring")


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


@router.get("", response_model=list[SystemAlertResponse], summary="Alertes système actives",
            description="Alertes ouvertes et non acquittées, les plus graves d'abord (X-Total-Count). Si la "
                        "dernière évaluation date de plus de `intervalleEvaluationSecondes`, le système est "
                        "d'abord mesuré (base, disque, échecs de connexion, erreurs d'audit, paiements Wave "
                        "bloqués, alertes LCB-FT, sauvegardes) et les alertes ouvertes, mises à jour ou "
                        "fermées: une seule alerte ouverte par code. Une alerte dont la condition disparaît "
                        "est fermée (resolue) et quitte la liste.")
async def list_alerts(request: Request, response: Response, session: SessionDep,
                      auth: AuthContext = authorize(RS_MON_READ)) -> list[SystemAlertResponse]:
    alerts = await MonitoringService(session, auth, _settings(request)).active_alerts()
    set_total_header(response, len(alerts))
    return alerts


@router.get("/config", response_model=AlertConfigResponse, summary="Seuils d'alerte")
async def get_alert_config(request: Request, session: SessionDep,
                           auth: AuthContext = authorize(RS_MON_READ)) -> AlertConfigResponse:
    return await MonitoringService(session, auth, _settings(request)).config()


@router.put("/config", response_model=AlertConfigResponse, summary="Modifier les seuils d'alerte",
            description="Mise à jour partielle: seuls les champs envoyés changent; null et corps vide sont "
                        "refusés (400), bornes vérifiées. Les nouveaux seuils s'appliquent dès la lecture "
                        "suivante de GET /api/alerts.")
async def update_alert_config(request: Request, data: UpdateAlertConfigRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_MON_WRITE)) -> AlertConfigResponse:
    return await MonitoringService(session, auth, _settings(request)).update_config(data)


@router.post("/{id}/acknowledge", response_model=SystemAlertResponse, responses=problems(404),
             summary="Acquitter une alerte système",
             description="Enregistre qui et quand. Idempotent: une alerte déjà acquittée répond 200 inchangée "
                         "(le premier acquittement est conservé). Une alerte acquittée dont la condition "
                         "persiste reste ouverte (pas de doublon) mais quitte la liste; si la condition "
                         "disparaît puis revient, une nouvelle alerte est créée.")
async def acknowledge_alert(id: uuid.UUID, request: Request, session: SessionDep,
                            auth: AuthContext = authorize(RS_MON_READ)) -> SystemAlertResponse:
    return await MonitoringService(session, auth, _settings(request)).acknowledge(id)
