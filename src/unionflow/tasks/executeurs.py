"""Running background tasks inside the scheduler: each scheduler runs at most one task at a time, claimed with
``TacheRepository.reclamer``; progress is committed with each chunk of work (which also extends the lease).
A task interrupted by a shutdown goes back to EN_ATTENTE and is resumed (its work is idempotent); one whose
runner crashed is taken over once the lease has passed. What a task of each type does is declared by its area
(``<area>/jobs.py``) and collected in ``unionflow/registres.py``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import maintenance
from unionflow.core.jobs import Contexte, EchecTache, Executeur
from unionflow.models import Tache
from unionflow.models.base import utcnow
from unionflow.models.planificateur import StatutTache, TypeTache
from unionflow.tasks.repository import TacheRepository

log = logging.getLogger("unionflow.tasks")
S = StatutTache


class ExecuteurTaches:
    def __init__(self, ctx: Contexte, hote: str, executeurs: Mapping[TypeTache, Executeur]) -> None:
        self.ctx = ctx
        self.hote = hote
        self.executeurs = executeurs
        self.en_cours: asyncio.Task[None] | None = None

    def _bail(self) -> Any:
        return utcnow() + timedelta(seconds=self.ctx.settings.planificateur_bail_seconds)

    async def tick(self) -> asyncio.Task[None] | None:
        """Claim and start the oldest runnable task unless this scheduler already runs one."""
        if self.en_cours is not None and not self.en_cours.done():
            return None
        async with self.ctx.sessionmaker() as session:
            if await maintenance.writes_suspended(session):
                return None
            tache = await TacheRepository(session, None).reclamer(utcnow(), self._bail(), self.hote)
            await session.commit()
        if tache is None:
            return None
        self.en_cours = asyncio.create_task(self._executer(tache), name=f"tache:{tache.id}")
        return self.en_cours

    async def _executer(self, tache: Tache) -> None:
        async def avancer(session: AsyncSession, traites: int, total: int) -> None:
            await TacheRepository(session, None).avancer(tache.id, traites, total, self._bail())

        values: dict[str, Any]
        try:
            resultat, lien = await self.executeurs[TypeTache(tache.type)](self.ctx, tache, avancer)
            values = {"statut": S.TERMINEE.value, "progression": 100, "resultat": resultat, "lien_resultat": lien,
                      "date_fin": utcnow()}
        except asyncio.CancelledError:
            values = {"statut": S.EN_ATTENTE.value}
            raise
        except Exception as exc:
            if not isinstance(exc, EchecTache):
                log.exception("task %s (%s) failed", tache.id, tache.type)
            values = {"statut": S.ECHOUEE.value, "message_erreur": f"{exc}"[:2000], "date_fin": utcnow()}
        finally:
            try:
                await asyncio.shield(self._terminer(tache, values))
            except Exception:
                # Database gone meanwhile: the lease expires and another scheduler resumes the task.
                log.exception("could not record the end of task %s", tache.id)

    async def _terminer(self, tache: Tache, values: dict[str, Any]) -> None:
        async with self.ctx.sessionmaker() as session:
            await TacheRepository(session, None).terminer(tache.id, values)
            await session.commit()
        log.info("task %s (%s) %s", tache.id, tache.type, values["statut"])
