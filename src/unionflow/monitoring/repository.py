"""Queries of the monitoring area: alerts, the thresholds row, and the live measurements.

System alerts belong to the installation, not to an organisation: every holder of RS-MON-READ sees them all.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, inspect, or_, select, text, update

from unionflow.core.pagination import PageParams
from unionflow.core.repository import SystemRepository
from unionflow.models import AlerteConfig, AlerteSysteme, JournalSysteme

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


class MesureRepository(SystemRepository[AlerteSysteme]):
    """Measures of the database itself, on the system's behalf (the evaluator, ``unionflow jobs surveiller``):
    a ping and whether a table exists. The measures over other areas' tables are asked of their owners'
    repositories (auth, audit, encaissement, lcbft, sauvegardes); ``model`` is the area's alert table."""

    model = AlerteSysteme

    async def ping(self) -> None:
        await self.session.execute(text("SELECT 1"))

    async def has_table(self, name: str) -> bool:
        def check(sync_session: Any) -> bool:
            return bool(inspect(sync_session.connection()).has_table(name))

        return bool(await self.session.run_sync(check))


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
