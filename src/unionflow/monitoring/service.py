from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.monitoring.evaluator import MODULE, MonitoringEvaluator
from unionflow.monitoring.repository import AlertRepository
from unionflow.monitoring.schemas import (
    AlertConfigResponse,
    SystemAlertResponse,
    UpdateAlertConfigRequest,
)

_RANG = {"CRITICAL": 0, "WARNING": 1, "INFO": 2}
_CONFIG_FIELDS = list(UpdateAlertConfigRequest.model_fields)


class MonitoringService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = AlertRepository(session)

    async def active_alerts(self) -> list[SystemAlertResponse]:
        await MonitoringEvaluator(self.session, self.settings).run()
        alerts = await self.repo.active()
        # Most severe first, then the most recent.
        alerts.sort(key=lambda a: (_RANG.get(a.niveau, 9), -a.date_creation.timestamp()))
        return [SystemAlertResponse.model_validate(a) for a in alerts]

    async def config(self) -> AlertConfigResponse:
        return AlertConfigResponse.model_validate(await self.repo.config())

    async def update_config(self, data: UpdateAlertConfigRequest) -> AlertConfigResponse:
        config = await self.repo.config(for_update=True)
        before = audit.snapshot(config, _CONFIG_FIELDS)
        for key, value in data.changes().items():
            setattr(config, key, value)
        # New thresholds apply at the next read instead of waiting for the interval to elapse.
        config.derniere_evaluation = None
        config.date_modification = datetime.now(UTC)
        config.modifie_par = self.auth.actor_name
        await self.session.flush()
        await audit.record(self.session, self.auth, action="UPDATE", module=MODULE, entite_type="AlerteConfig",
                           entite_id=config.id, before=before, after=audit.snapshot(config, _CONFIG_FIELDS),
                           description="Modification des seuils d'alerte")
        return AlertConfigResponse.model_validate(config)

    async def acknowledge(self, alert_id: uuid.UUID) -> SystemAlertResponse:
        alert = await self.repo.get(alert_id, for_update=True)
        if alert is None:
            raise NotFound("Alerte système introuvable")
        if alert.acquittee:
            # Idempotent: two operators acknowledging together both succeed; the first one is kept.
            return SystemAlertResponse.model_validate(alert)
        alert.acquittee = True
        alert.acquittee_par = self.auth.actor_name
        alert.date_acquittement = datetime.now(UTC)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ACQUITTEMENT", module=MODULE,
                           entite_type="AlerteSysteme", entite_id=alert.id,
                           description=f"Alerte {alert.code} acquittée")
        return SystemAlertResponse.model_validate(alert)
