"""Queries of the backup area. Backups concern the whole installation: RS-MON-READ holders see them all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.inspection import inspect

from unionflow.core.repository import SystemRepository
from unionflow.models import AlerteConfig, AuditLog, Sauvegarde, SauvegardeConfig
from unionflow.models.monitoring import StatutSauvegarde, TypeSauvegarde

CONFIG_ID = 1


def row_dict(entity: Any) -> dict[str, Any]:
    return {c.key: getattr(entity, c.key) for c in inspect(entity).mapper.column_attrs}


class SauvegardeRepository(SystemRepository[Sauvegarde]):
    """Backups belong to the installation: the routes' role sets (global roles) decide who reaches them."""

    model = Sauvegarde

    async def taille_base(self) -> int:
        """Size of the database in bytes (decides whether a manual backup runs as a background task)."""
        if self.session.get_bind().dialect.name == "postgresql":
            return int((await self.session.execute(text("SELECT pg_database_size(current_database())"))).scalar_one())
        pages = (await self.session.execute(text("PRAGMA page_count"))).scalar_one()
        size = (await self.session.execute(text("PRAGMA page_size"))).scalar_one()
        return int(pages) * int(size)

    async def kept(self) -> list[Sauvegarde]:
        stmt = (select(Sauvegarde).where(Sauvegarde.statut != StatutSauvegarde.SUPPRIMEE)
                .order_by(Sauvegarde.date_creation.desc(), Sauvegarde.id))
        return list((await self.session.execute(stmt)).scalars())

    async def config(self, *, for_update: bool = False) -> SauvegardeConfig:
        stmt = select(SauvegardeConfig).where(SauvegardeConfig.id == CONFIG_ID)
        if for_update:
            stmt = stmt.with_for_update()
        row = (await self.session.execute(stmt)).scalar_one_or_none()
        if row is None:  # the migration creates it; recreated if someone deleted it by hand
            row = SauvegardeConfig(id=CONFIG_ID, actif=False, frequence="QUOTIDIENNE", heure="02:00",
                                   jour_semaine=7, retention_jours=30)
            self.session.add(row)
            await self.session.flush()
        return row

    async def config_existante(self) -> SauvegardeConfig | None:
        """The schedule row if it exists, without recreating it (the monitoring only reads)."""
        return await self.session.get(SauvegardeConfig, CONFIG_ID)

    async def derniere(self, *, statut: str, type_: str | None = None) -> Sauvegarde | None:
        """The latest backup in ``statut`` (and of ``type_``), for the monitoring's measures and metrics."""
        stmt = select(Sauvegarde).where(Sauvegarde.statut == statut)
        if type_:
            stmt = stmt.where(Sauvegarde.type == type_)
        stmt = stmt.order_by(Sauvegarde.date_creation.desc()).limit(1)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def last_automatic(self, statuts: tuple[str, ...]) -> Sauvegarde | None:
        stmt = (select(Sauvegarde).where(Sauvegarde.type == TypeSauvegarde.AUTOMATIQUE, Sauvegarde.statut.in_(statuts))
                .order_by(Sauvegarde.date_creation.desc()).limit(1))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def expired(self, before: datetime, types: tuple[str, ...]) -> list[Sauvegarde]:
        stmt = (select(Sauvegarde).where(Sauvegarde.type.in_(types),
                                         Sauvegarde.statut.in_((StatutSauvegarde.TERMINEE, StatutSauvegarde.ECHOUEE)),
                                         Sauvegarde.date_creation < before)
                .order_by(Sauvegarde.date_creation).with_for_update())
        return list((await self.session.execute(stmt)).scalars())

    async def schema_revision(self) -> str:
        rows = (await self.session.execute(text("SELECT version_num FROM alembic_version"))).scalars()
        return ",".join(sorted(str(r) for r in rows))

    # What a restoration must not take back: the catalogue, the schedules and the audit trail.

    async def preserved_state(self, audit_since: datetime) -> dict[str, list[dict[str, Any]]]:
        await self.session.flush()
        state: dict[str, list[dict[str, Any]]] = {}
        for name, model in (("sauvegarde", Sauvegarde), ("sauvegarde_config", SauvegardeConfig),
                            ("alerte_config", AlerteConfig)):
            state[name] = [row_dict(r) for r in (await self.session.execute(select(model))).scalars()]
        audits = (await self.session.execute(select(AuditLog).where(AuditLog.date_heure >= audit_since))).scalars()
        state["audit_log"] = [row_dict(r) for r in audits]
        return state

    async def put_back(self, state: dict[str, list[dict[str, Any]]], audit_since: datetime) -> None:
        for name, model in (("sauvegarde", Sauvegarde), ("sauvegarde_config", SauvegardeConfig),
                            ("alerte_config", AlerteConfig)):
            for values in state[name]:
                await self.session.merge(model(**values))
        present = set((await self.session.execute(
            select(AuditLog.id).where(AuditLog.date_heure >= audit_since))).scalars())
        missing = [values for values in state["audit_log"] if values["id"] not in present]
        for start in range(0, len(missing), 1000):
            await self.session.execute(insert(AuditLog), missing[start:start + 1000])
        await self.session.flush()
