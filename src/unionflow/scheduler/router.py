"""Scheduled jobs in the Logs & Monitoring area: run history and schedule (RS-MON-READ)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from fastapi import APIRouter, Depends, Query, Request

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.jobs import Job
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_MON_READ
from unionflow.core.routing import area_router
from unionflow.models.planificateur import StatutExecution
from unionflow.scheduler.repository import ExecutionFilters
from unionflow.scheduler.schemas import ExecutionJobResponse, PlanificationJobResponse
from unionflow.scheduler.service import PlanificateurService


def creer_router(jobs: Sequence[Job]) -> APIRouter:
    """The routes over the given jobs (``unionflow.registres.JOBS``, passed by app.py): their names are the
    ``job`` filter's pattern."""
    router = area_router("/api/monitoring/jobs", "Logs & Monitoring")
    noms = "|".join(job.nom for job in jobs)

    @router.get("", response_model=Page[ExecutionJobResponse], summary="Exécutions des jobs planifiés",
                description="Historique paginé des exécutions du planificateur (`unionflow worker` ou planificateur "
                            "intégré), les plus récentes d'abord: job, hôte, début, fin, durée, statut (EN_COURS, "
                            "REUSSIE, ECHOUEE), compteurs et message d'erreur. Filtres `job`, `statut`, `depuis`, "
                            "`jusqua` (ISO 8601). Chaque créneau d'un job n'est exécuté qu'une fois, quel que soit le "
                            "nombre d'hôtes. Historique conservé `UNIONFLOW_PLANIFICATEUR_RETENTION_JOURS` jours.")
    async def list_executions(request: Request, session: SessionDep, params: PageParams = Depends(paging(20)),
                              job: str | None = Query(None, pattern=f"^({noms})$"),
                              statut: StatutExecution | None = Query(None),
                              depuis: datetime | None = Query(None), jusqua: datetime | None = Query(None),
                              auth: AuthContext = authorize(RS_MON_READ)) -> Page[ExecutionJobResponse]:
        filters = ExecutionFilters(job=job, statut=statut.value if statut else None, depuis=depuis, jusqua=jusqua)
        return await PlanificateurService(session, auth, request.app.state.settings, jobs).executions(filters, params)


    @router.get("/planification", response_model=list[PlanificationJobResponse], summary="Planification des jobs",
                description="Pour chaque job périodique: intervalle configuré (0 = désactivé), prochaine exécution "
                            "et planificateur qui l'exécute en ce moment.")
    async def list_planification(request: Request, session: SessionDep,
                                 auth: AuthContext = authorize(RS_MON_READ)) -> list[PlanificationJobResponse]:
        return await PlanificateurService(session, auth, request.app.state.settings, jobs).planification()

    return router
