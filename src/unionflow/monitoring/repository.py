"""Queries of the monitoring area: alerts, the thresholds row, and the live measurements.

System alerts belong to the installation, not to an organisation: every holder of RS-MON-READ sees them all.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, inspect, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.pagination import PageParams
from unionflow.core.repository import SystemRepository
from unionflow.models import (
    AlerteConfig,
    AlerteSysteme,
    AuditLog,
    JournalSysteme,
    LoginThrottle,
    Paiement,
    Sauvegarde,
    SauvegardeConfig,
)

CONFIG_ID = 1
# Audit actions that other areas may use for a refused login, in addition to the throttle counters.
FAILED_LOGIN_ACTIONS = ("LOGIN_FAILED", "LOGIN_ECHEC", "ECHEC_CONNEXION")


class AlerteSystemeRepository(SystemRepository[AlerteSysteme]):
    """System alerts and their configuration belong to the installation (RS-MON-READ sees them all)."""

    model = AlerteSysteme

    async def config(self, *, for_update: bool = False) -> AlerteConfig:
        stmt = select(AlerteConfig).where(AlerteConfig.id == CONFIG_ID)
        if for_update:
            stmt = stmt.with_for_update()
        row = (await self.session.execute(stmt)).scalar_one_or_none()
        if row is None:  # the migration creates it; recreated if someone deleted it by hand
            row = AlerteConfig(id=CONFIG_ID)
            self.session.add(row)
            await self.session.flush()
        return row

    async def claim_evaluation(self, now: datetime, interval_seconds: int | None) -> bool:
        """Compare-and-set on ``derniere_evaluation``: among concurrent workers exactly one wins per interval.
        ``interval_seconds=None`` forces the claim (cron job)."""
        stmt = update(AlerteConfig).where(AlerteConfig.id == CONFIG_ID)
        if interval_seconds is not None:
            stmt = stmt.where(or_(AlerteConfig.derniere_evaluation.is_(None),
                                  AlerteConfig.derniere_evaluation <= now - timedelta(seconds=interval_seconds)))
        result = await self.session.execute(
            stmt.values(derniere_evaluation=now).execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))

    async def active(self) -> list[AlerteSysteme]:
        stmt = select(AlerteSysteme).where(AlerteSysteme.acquittee.is_(False), AlerteSysteme.resolue.is_(False))
        return list((await self.session.execute(stmt)).scalars())

    async def open_by_code(self) -> dict[str, AlerteSysteme]:
        stmt = select(AlerteSysteme).where(AlerteSysteme.cle_ouverte.is_not(None)).with_for_update()
        return {a.code: a for a in (await self.session.execute(stmt)).scalars()}


class MesureRepository:
    """Read-only measurements of the live system, on the system's behalf (the evaluator, GET /api/monitoring):
    counts over other areas' tables; no row is returned to a caller, so no scope applies."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def ping(self) -> None:
        await self.session.execute(text("SELECT 1"))

    async def throttle_failures(self, since: datetime) -> list[tuple[str, int]]:
        stmt = select(LoginThrottle.key, LoginThrottle.failures).where(LoginThrottle.window_start >= since)
        return [(k, int(f or 0)) for k, f in (await self.session.execute(stmt)).all()]

    async def audit_count(self, since: datetime, *, severities: tuple[str, ...] = (),
                          actions: tuple[str, ...] = ()) -> int:
        stmt = select(func.count()).select_from(AuditLog).where(AuditLog.date_heure >= since)
        if severities:
            stmt = stmt.where(AuditLog.severite.in_(severities))
        if actions:
            stmt = stmt.where(AuditLog.type_action.in_(actions))
        return int((await self.session.execute(stmt)).scalar_one())

    async def stuck_wave_payments(self, older_than: datetime) -> int:
        stmt = select(func.count()).select_from(Paiement).where(
            Paiement.methode == "WAVE", Paiement.statut == "EN_ATTENTE", Paiement.created_at < older_than)
        return int((await self.session.execute(stmt)).scalar_one())

    async def has_table(self, name: str) -> bool:
        def check(sync_session: Any) -> bool:
            return bool(inspect(sync_session.connection()).has_table(name))

        return bool(await self.session.run_sync(check))

    async def unprocessed_lcb_ft(self) -> int:
        stmt = text("SELECT count(*) FROM alerte_lcb_ft WHERE traitee = :traitee").bindparams(traitee=False)
        return int((await self.session.execute(stmt)).scalar_one())

    async def last_backup(self, *, statut: str, type_: str | None = None) -> Sauvegarde | None:
        stmt = select(Sauvegarde).where(Sauvegarde.statut == statut)
        if type_:
            stmt = stmt.where(Sauvegarde.type == type_)
        stmt = stmt.order_by(Sauvegarde.date_creation.desc()).limit(1)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def backup_config(self) -> SauvegardeConfig | None:
        return await self.session.get(SauvegardeConfig, CONFIG_ID)


class JournalSystemeRepository(SystemRepository[JournalSysteme]):
    """Stored system logs. Like alerts they belong to the installation: RS-MON-READ sees them all."""

    model = JournalSysteme

    async def search(self, *, niveaux: list[str] | None, logger: str | None, request_id: str | None,
                     debut: datetime | None, fin: datetime | None,
                     params: PageParams) -> tuple[list[JournalSysteme], int, bool]:
        stmt: Select[tuple[JournalSysteme]] = select(JournalSysteme)
        if niveaux:
            stmt = stmt.where(JournalSysteme.niveau.in_(niveaux))
        if logger:
            # The logger and its children: "unionflow.wave" matches "unionflow.wave.client".
            stmt = stmt.where(or_(JournalSysteme.logger == logger,
                                  JournalSysteme.logger.startswith(logger + ".", autoescape=True)))
        if request_id:
            stmt = stmt.where(JournalSysteme.request_id == request_id)
        if debut is not None:
            stmt = stmt.where(JournalSysteme.horodatage >= debut)
        if fin is not None:
            stmt = stmt.where(JournalSysteme.horodatage <= fin)
        stmt = stmt.order_by(JournalSysteme.horodatage.desc(), JournalSysteme.id.desc())
        return await self.paginate(stmt, params)
