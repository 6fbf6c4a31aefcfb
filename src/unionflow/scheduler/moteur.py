"""The scheduler loop behind ``unionflow worker`` and the in-process scheduler (``planificateur_integre``).

Every tick, each enabled job whose slot is due is claimed by one conditional UPDATE of its
``planification_job`` row (see ``PlanificationRepository.reclamer``) in the same transaction that records the
run as EN_COURS; only the winner runs it, whatever the number of hosts and processes. The row stays leased
(``verrouillee_jusqua``) while the job runs so a slow run is never overlapped by the next slot; a crashed
host's lease expires after ``planificateur_bail_seconds`` and the job runs again at its next slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import os
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from unionflow.config import Settings
from unionflow.core import maintenance
from unionflow.core.db import create_sessionmaker, sqlite_write_intent
from unionflow.core.jobs import Compteurs, Contexte, EchecJob, Executeur, Job
from unionflow.core.metrics import job_run
from unionflow.models import ExecutionJob
from unionflow.models.base import utcnow
from unionflow.models.planificateur import TypeTache
from unionflow.scheduler.repository import ExecutionRepository, PlanificationRepository
from unionflow.tasks.executeurs import ExecuteurTaches

log = logging.getLogger("unionflow.scheduler")


def prochain_creneau(now: datetime, intervalle: int, decalage: int = 0) -> datetime:
    """The first slot strictly after ``now``; slots are ``k × intervalle + decalage`` seconds after the epoch,
    so every host computes the same ones (a daily job with offset 900 runs at 00:15 UTC)."""
    k = math.floor((now.timestamp() - decalage) / intervalle) + 1
    return datetime.fromtimestamp(k * intervalle + decalage, UTC)


def nom_hote() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class MoteurPlanificateur:
    """The scheduler of the given jobs and task executors; ``unionflow.registres.Planificateur`` is this one with
    every job and executor of the application."""

    def __init__(self, engine: AsyncEngine, settings: Settings, jobs: Sequence[Job],
                 executeurs: Mapping[TypeTache, Executeur], hote: str | None = None) -> None:
        self.settings = settings
        self.jobs = [job for job in jobs if job.intervalle(settings) > 0]
        # Unique per scheduler instance: two schedulers in one process must not release each other's leases.
        self.hote = f"{hote or nom_hote()}:{uuid.uuid4().hex[:6]}"
        self.contexte = Contexte(engine, create_sessionmaker(engine), settings)
        self.en_cours: dict[str, asyncio.Task[None]] = {}
        self.taches = ExecuteurTaches(self.contexte, self.hote, executeurs)

    async def preparer(self) -> None:
        now = utcnow()
        token = sqlite_write_intent.set(True)
        try:
            async with self.contexte.sessionmaker() as session:
                repo = PlanificationRepository(session)
                for job in self.jobs:
                    await repo.preparer(job.nom, prochain_creneau(now, job.intervalle(self.settings),
                                                                  job.decalage(self.settings)))
                await session.commit()
        finally:
            sqlite_write_intent.reset(token)

    async def _reclamer(self, job: Job) -> uuid.UUID | None:
        now = utcnow()
        prochaine = prochain_creneau(now, job.intervalle(self.settings), job.decalage(self.settings))
        bail = now + timedelta(seconds=self.settings.planificateur_bail_seconds)
        async with self.contexte.sessionmaker() as session:
            if await maintenance.writes_suspended(session) \
                    or not await PlanificationRepository(session).reclamer(job.nom, now, prochaine, bail, self.hote):
                await session.rollback()
                return None
            execution = ExecutionJob(job=job.nom, declenchement="PLANIFIE", hote=self.hote, statut="EN_COURS",
                                     date_debut=now, compteurs={})
            ExecutionRepository(session).add(execution)
            await session.commit()
            return execution.id

    async def _executer(self, job: Job, execution_id: uuid.UUID) -> None:
        started = time.monotonic()
        statut, erreur = "REUSSIE", None
        compteurs: Compteurs = {}
        try:
            # Same metrics and ``unionflow.jobs`` line as a CLI run (core.metrics.job_run); a job reporting
            # failure (EchecJob) is an "echec" run there too.
            with job_run(job.nom) as run:
                try:
                    compteurs = await job.executer(self.contexte)
                except EchecJob as exc:
                    statut, compteurs, erreur = "ECHOUEE", exc.compteurs, str(exc)
                    run.outcome = "echec"
                run.counts.update(compteurs)
        except asyncio.CancelledError:
            statut, erreur = "ECHOUEE", "Interrompue par l'arrêt du planificateur"
            raise
        except Exception as exc:
            log.exception("job %s failed", job.nom)
            statut, erreur = "ECHOUEE", f"{type(exc).__name__}: {exc}"
        finally:
            # Shielded: an interrupted run is still recorded and its lease released.
            try:
                await asyncio.shield(self._terminer(job, execution_id, statut, compteurs, erreur,
                                                    int((time.monotonic() - started) * 1000)))
            except Exception:
                # Database gone meanwhile: the lease expires by itself and the run stays EN_COURS.
                log.exception("could not record the end of job %s", job.nom)

    async def _terminer(self, job: Job, execution_id: uuid.UUID, statut: str, compteurs: Compteurs,
                        erreur: str | None, duree_ms: int) -> None:
        async with self.contexte.sessionmaker() as session:
            execution = await ExecutionRepository(session).get_fresh(execution_id)
            if execution is not None:
                execution.statut, execution.compteurs = statut, compteurs
                execution.message_erreur = erreur[:2000] if erreur else None
                execution.date_fin, execution.duree_ms = utcnow(), duree_ms
            await PlanificationRepository(session).liberer(job.nom, self.hote)
            await session.commit()
        log.info("job %s %s in %d ms %s", job.nom, statut, duree_ms, compteurs)

    def _fini(self, nom: str, _task: asyncio.Task[None]) -> None:
        self.en_cours.pop(nom, None)

    async def tick(self) -> list[asyncio.Task[None]]:
        """Claim every due job and start it, and one background task when none runs here; returns what this
        tick started."""
        started = []
        token = sqlite_write_intent.set(True)  # the jobs write: SQLite takes its write lock up front
        try:
            for job in self.jobs:
                if job.nom in self.en_cours:
                    continue
                try:
                    execution_id = await self._reclamer(job)
                except Exception:
                    # Database unreachable: try again next tick rather than end the worker.
                    log.exception("could not claim job %s", job.nom)
                    continue
                if execution_id is not None:
                    task = asyncio.create_task(self._executer(job, execution_id), name=f"job:{job.nom}")
                    self.en_cours[job.nom] = task
                    task.add_done_callback(functools.partial(self._fini, job.nom))
                    started.append(task)
            try:
                if (tache := await self.taches.tick()) is not None:
                    started.append(tache)
            except Exception:
                log.exception("could not claim a background task")
        finally:
            sqlite_write_intent.reset(token)
        return started

    async def _attendre(self, stop: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=self.settings.planificateur_tick_seconds)

    async def run(self, stop: asyncio.Event, *, once: bool = False) -> None:
        while not stop.is_set():
            try:
                await self.preparer()
                break
            except Exception:
                # Database not reachable yet (container start order): keep trying instead of exiting.
                log.exception("scheduler could not prepare its jobs")
                await self._attendre(stop)
        log.info("scheduler %s started: %s", self.hote, ", ".join(j.nom for j in self.jobs))
        while not stop.is_set():
            started = await self.tick()
            if once:
                await asyncio.gather(*started, return_exceptions=True)
                return
            await self._attendre(stop)
        await self.arreter()

    async def arreter(self, grace_seconds: float = 30.0) -> None:
        """Let running jobs finish for a while, then interrupt them (recorded as ECHOUEE, leases released)."""
        running = list(self.en_cours.values())
        if self.taches.en_cours is not None and not self.taches.en_cours.done():
            running.append(self.taches.en_cours)
        if not running:
            return
        _done, pending = await asyncio.wait(running, timeout=grace_seconds)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
