"""Read side of the scheduler for the monitoring API: run history and schedule."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.jobs import Job
from unionflow.core.pagination import Page, PageParams
from unionflow.models.base import utcnow
from unionflow.scheduler.repository import ExecutionFilters, ExecutionRepository, PlanificationRepository
from unionflow.scheduler.schemas import ExecutionJobResponse, PlanificationJobResponse


class PlanificateurService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings, jobs: Sequence[Job]) -> None:
        self.session = session
        self.jobs = jobs
        self.auth = auth
        self.settings = settings

    async def executions(self, filters: ExecutionFilters, params: PageParams) -> Page[ExecutionJobResponse]:
        rows, total, exact = await ExecutionRepository(self.session).search(filters, params)
        return Page[ExecutionJobResponse].build([ExecutionJobResponse.model_validate(r) for r in rows], params,
                                                total, exact)

    async def planification(self) -> list[PlanificationJobResponse]:
        rows = await PlanificationRepository(self.session).toutes()
        now = utcnow()
        out = []
        for job in self.jobs:
            row = rows.get(job.nom)
            leased = row is not None and row.verrouillee_jusqua is not None and row.verrouillee_jusqua > now
            out.append(PlanificationJobResponse(
                job=job.nom, description=job.description, intervalle_secondes=job.intervalle(self.settings),
                prochaine_execution=row.prochaine_execution if row else None,
                en_cours_par=row.verrouillee_par if leased and row else None))
        return out
