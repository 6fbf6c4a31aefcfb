"""The in-process scheduler: a background task of the application's lifespan when
``planificateur_integre`` is on, so a single-machine install (``make run``) needs no ``unionflow worker``.
Several workers of one server each run one; the claims keep every run unique."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence

from sqlalchemy.ext.asyncio import AsyncEngine

from unionflow.config import Settings
from unionflow.core.jobs import Executeur, Job
from unionflow.models.planificateur import TypeTache
from unionflow.scheduler.moteur import MoteurPlanificateur


@contextlib.asynccontextmanager
async def planificateur_integre(engine: AsyncEngine, settings: Settings, jobs: Sequence[Job],
                                executeurs: Mapping[TypeTache, Executeur]) -> AsyncIterator[None]:
    if not settings.planificateur_integre:
        yield
        return
    stop = asyncio.Event()
    task = asyncio.create_task(MoteurPlanificateur(engine, settings, jobs, executeurs).run(stop), name="planificateur")
    try:
        yield
    finally:
        stop.set()
        await task
