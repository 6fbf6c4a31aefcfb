from __future__ import annotations

import hmac
import ipaddress
import uuid
from datetime import UTC, datetime

from prometheus_client.core import GaugeMetricFamily
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.backups.repository import SauvegardeRepository
from unionflow.config import Settings
from unionflow.core import audit, metrics
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidToken, NotFound, RegleMetier, Unauthenticated
from unionflow.core.pagination import Page, PageParams
from unionflow.models.journal import NiveauJournal
from unionflow.models.monitoring import StatutSauvegarde
from unionflow.monitoring.evaluator import MODULE, MonitoringEvaluator
from unionflow.monitoring.repository import AlerteSystemeRepository, JournalSystemeRepository
from unionflow.monitoring.schemas import (
    AlerteConfigResponse,
    AlerteSystemeResponse,
    JournalSystemeResponse,
    UpdateAlerteConfigRequest,
)

_RANG = {"CRITICAL": 0, "WARNING": 1, "INFO": 2}
_CONFIG_FIELDS = list(UpdateAlerteConfigRequest.model_fields)


class MonitoringService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = AlerteSystemeRepository(session)

    async def active_alerts(self) -> list[AlerteSystemeResponse]:
        await MonitoringEvaluator(self.session, self.settings).run()
        alerts = await self.repo.active()
        # Most severe first, then the most recent.
        alerts.sort(key=lambda a: (_RANG.get(a.niveau, 9), -a.date_creation.timestamp()))
        return [AlerteSystemeResponse.model_validate(a) for a in alerts]

    async def config(self) -> AlerteConfigResponse:
        return AlerteConfigResponse.model_validate(await self.repo.config())

    async def modifier_config(self, data: UpdateAlerteConfigRequest) -> AlerteConfigResponse:
        config = await self.repo.config(for_update=True)
        before = audit.snapshot(config, _CONFIG_FIELDS)
        for key, value in data.changes().items():
            setattr(config, key, value)
        # New thresholds apply at the next read instead of waiting for the interval to elapse.
        config.derniere_evaluation = None
        config.date_modification = datetime.now(UTC)
        config.modifie_par = self.auth.actor_name
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="AlerteConfig",
                           entite_id=config.id, before=before, after=audit.snapshot(config, _CONFIG_FIELDS),
                           description="Modification des seuils d'alerte")
        return AlerteConfigResponse.model_validate(config)

    async def acquitter(self, alert_id: uuid.UUID) -> AlerteSystemeResponse:
        alert = await self.repo.get(alert_id, for_update=True)
        if alert is None:
            raise NotFound("Alerte système introuvable")
        if alert.acquittee:
            # Idempotent: two operators acknowledging together both succeed; the first one is kept.
            return AlerteSystemeResponse.model_validate(alert)
        alert.acquittee = True
        alert.acquittee_par = self.auth.actor_name
        alert.date_acquittement = datetime.now(UTC)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ACQUITTER", module=MODULE,
                           entite_type="AlerteSysteme", entite_id=alert.id,
                           description=f"Alerte {alert.code} acquittée")
        return AlerteSystemeResponse.model_validate(alert)


def _utc(value: datetime | None) -> datetime | None:
    """An instant without offset is read as UTC (the stored times are UTC)."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


class JournalService:
    """Stored system logs (core/journal.py), newest first."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.repo = JournalSystemeRepository(session)
        self.auth = auth

    async def lister(self, params: PageParams, *, niveau: NiveauJournal | None, logger: str | None,
                     request_id: str | None, date_debut: datetime | None,
                     date_fin: datetime | None) -> Page[JournalSystemeResponse]:
        debut, fin = _utc(date_debut), _utc(date_fin)
        if debut is not None and fin is not None and debut > fin:
            raise RegleMetier("dateDebut doit précéder dateFin")
        # A level is a threshold, as in every log viewer: WARNING shows WARNING, ERROR and CRITICAL.
        levels = list(NiveauJournal)
        niveaux = [n.value for n in levels[levels.index(niveau):]] if niveau else None
        rows, total, exact = await self.repo.search(niveaux=niveaux, logger=logger, request_id=request_id,
                                                    debut=debut, fin=fin, params=params)
        return Page[JournalSystemeResponse].build([JournalSystemeResponse.model_validate(r) for r in rows],
                                                  params, total, exact)


def _allowed_network(host: str | None, networks: list[str]) -> bool:
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(n, strict=False) for n in networks)


class MetricsService:
    """GET /metrics: its own protection instead of a user token, since scrapers hold no OIDC identity."""

    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.sauvegardes = SauvegardeRepository(session)
        self.settings = settings

    def check_access(self, client_host: str | None, authorization: str | None) -> None:
        token = self.settings.metrics_token
        if authorization and token:
            scheme, _, value = authorization.partition(" ")
            if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode()):
                return
            raise InvalidToken("Jeton d'accès aux métriques invalide")
        if _allowed_network(client_host, self.settings.metrics_allowed_networks):
            return
        if token:
            raise Unauthenticated("Jeton d'accès aux métriques requis")
        raise Forbidden("Adresse non autorisée à lire les métriques")

    async def render(self) -> bytes:
        age = GaugeMetricFamily("unionflow_sauvegarde_derniere_age_seconds",
                                "Âge de la dernière sauvegarde terminée (+Inf: aucune)")
        last = await self.sauvegardes.derniere(statut=StatutSauvegarde.TERMINEE)
        taken = (last.date_fin or last.date_creation) if last is not None else None
        age.add_metric([], (datetime.now(UTC) - taken).total_seconds() if taken else float("inf"))
        return metrics.render([age])
