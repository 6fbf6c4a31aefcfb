"""What a scheduled job and a background-task executor are. Areas declare theirs in their own ``jobs.py``;
``unionflow/registres.py``, beside app.py and cli.py, collects them, so that neither the scheduler
(planificateur) nor the task runner (taches) imports the areas whose work they run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.models import Tache

Compteurs = dict[str, int]


class EchecJob(Exception):
    """A job that ran to its end but reports failure (e.g. backup ECHOUEE): the run is recorded ECHOUEE."""

    def __init__(self, message: str, compteurs: Compteurs) -> None:
        super().__init__(message)
        self.compteurs = compteurs


@dataclass(frozen=True)
class Contexte:
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    settings: Settings


@dataclass(frozen=True)
class Job:
    nom: str
    description: str
    intervalle: Callable[[Settings], int]
    decalage: Callable[[Settings], int]
    executer: Callable[[Contexte], Awaitable[Compteurs]]


# Progress of a background task: (session, done, total); the runner records it with the task's lease.
Avancer = Callable[[AsyncSession, int, int], Awaitable[None]]
# (context, task, progress callback) → (result, link to the produced resource or None)
Executeur = Callable[[Contexte, Tache, Avancer], Awaitable[tuple[dict[str, Any], str | None]]]


class EchecTache(Exception):
    """A task that cannot be done (its input is gone): recorded ECHOUEE with this message, no stack trace."""
