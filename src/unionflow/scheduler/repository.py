"""Queries of the scheduler: the lease rows (one per job) and the run history. Jobs belong to the
installation, not to an organisation: every holder of RS-MON-READ sees every run."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from unionflow.core.pagination import PageParams
from unionflow.core.repository import SystemRepository
from unionflow.models import ExecutionJob, PlanificationJob
from unionflow.models.planificateur import StatutExecution


class PlanificationRepository(SystemRepository[PlanificationJob]):
    model = PlanificationJob

    async def preparer(self, nom: str, prochaine: datetime) -> None:
        """Create the job's row if missing; bring a due date forward when the interval was shortened."""
        insert = pg_insert if self.session.get_bind().dialect.name == "postgresql" else sqlite_insert
        await self.session.execute(insert(PlanificationJob).values(nom=nom, prochaine_execution=prochaine)
                                   .on_conflict_do_nothing(index_elements=[PlanificationJob.nom]))
        await self.session.execute(update(PlanificationJob)
                                   .where(PlanificationJob.nom == nom, PlanificationJob.prochaine_execution > prochaine)
                                   .values(prochaine_execution=prochaine))

    async def reclamer(self, nom: str, now: datetime, prochaine: datetime, bail: datetime, hote: str) -> bool:
        """Compare-and-set: the run is ours only if the job is due and nobody holds it. On PostgreSQL a
        concurrent claimer waits on the row lock, then re-checks the condition against the committed row
        (already moved to the next slot) and updates nothing; on SQLite writers are serialised."""
        result = await self.session.execute(
            update(PlanificationJob)
            .where(PlanificationJob.nom == nom, PlanificationJob.prochaine_execution <= now,
                   or_(PlanificationJob.verrouillee_jusqua.is_(None), PlanificationJob.verrouillee_jusqua < now))
            .values(prochaine_execution=prochaine, verrouillee_jusqua=bail, verrouillee_par=hote)
            .execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))

    async def liberer(self, nom: str, hote: str) -> None:
        await self.session.execute(
            update(PlanificationJob).where(PlanificationJob.nom == nom, PlanificationJob.verrouillee_par == hote)
            .values(verrouillee_jusqua=None, verrouillee_par=None).execution_options(synchronize_session=False))

    async def toutes(self) -> dict[str, PlanificationJob]:
        return {row.nom: row for row in (await self.session.execute(select(PlanificationJob))).scalars()}


@dataclass(frozen=True)
class ExecutionFilters:
    job: str | None = None
    statut: str | None = None
    depuis: datetime | None = None
    jusqua: datetime | None = None


class ExecutionRepository(SystemRepository[ExecutionJob]):
    model = ExecutionJob

    async def get_fresh(self, execution_id: uuid.UUID) -> ExecutionJob | None:
        """The run as committed now (another session may have changed it)."""
        return await self.session.get(ExecutionJob, execution_id, populate_existing=True)

    async def search(self, filters: ExecutionFilters, params: PageParams) -> tuple[list[ExecutionJob], int, bool]:
        stmt: Select[Any] = select(ExecutionJob)
        if filters.job is not None:
            stmt = stmt.where(ExecutionJob.job == filters.job)
        if filters.statut is not None:
            stmt = stmt.where(ExecutionJob.statut == filters.statut)
        if filters.depuis is not None:
            stmt = stmt.where(ExecutionJob.date_debut >= filters.depuis)
        if filters.jusqua is not None:
            stmt = stmt.where(ExecutionJob.date_debut < filters.jusqua)
        return await self.paginate(stmt.order_by(ExecutionJob.date_debut.desc(), ExecutionJob.id), params)

    async def delete_finished_before(self, before: datetime) -> int:
        """The run history's retention (``planificateur_retention_jours``); a run still EN_COURS stays."""
        stmt = delete(ExecutionJob).where(ExecutionJob.date_debut < before,
                                          ExecutionJob.statut != StatutExecution.EN_COURS)
        result = await self.session.execute(stmt.execution_options(synchronize_session=False))
        return int(getattr(result, "rowcount", 0) or 0)
