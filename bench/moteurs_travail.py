"""The worker side of ``bench/moteurs.py``: the same two jobs, run by our engine or by Celery, each doing its effect
through UnionFlow's own code on PostgreSQL.

- ``python -m bench.moteurs_travail table rappels``: the outbox's delivery worker (``LivreurNotifications``, what
  ``unionflow jobs envoyer-notifications`` runs) in a loop, polling every ``BENCH_MOTEURS_ATTENTE`` seconds when
  nothing is due, as the scheduled job does at its interval; several of them share the outbox by leases.
- ``python -m bench.moteurs_travail table generation``: the scheduler's task executor (``MoteurPlanificateur`` with
  no periodic job and the dues generation executor), one task at a time per process, claimed from the task table.
- ``python -m bench.moteurs_travail celery N``: a Celery worker (prefork pool of N processes, prefetch 1,
  ``acks_late``, ``task_reject_on_worker_lost``) consuming ``livrer(notification_id)`` and ``generer(tache_id)``:
  the same rows, the same transport and the same executor; Celery replaces only the claiming.

Settings come from the environment (``UNIONFLOW_*``); the broker from ``BENCH_MOTEURS_BROKER``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import uuid
from typing import Any

from celery import Celery

from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.core.jobs import Contexte
from unionflow.cotisations.jobs import generation_cotisations_tache
from unionflow.models import Notification, Tache
from unionflow.models.base import utcnow
from unionflow.models.planificateur import StatutTache, TypeTache
from unionflow.notifications.delivery import BilanEnvoi, LivreurNotifications
from unionflow.notifications.passerelles_sms import DeliveryError
from unionflow.notifications.schemas import StatutNotification
from unionflow.scheduler.moteur import MoteurPlanificateur
from unionflow.tasks.repository import TacheRepository

# One queue per comparison run (bench/moteurs.py names it): two runs at once, a bench beside the test suite's,
# never take each other's messages.
FILE = os.environ.get("BENCH_MOTEURS_FILE", "moteurs")
# The honest at-least-once setup: a message is acknowledged once its task has run, a worker that dies mid-task gets
# it redelivered, and no worker holds more than the message it runs.
app = Celery("unionflow_bench_moteurs", broker=os.environ.get("BENCH_MOTEURS_BROKER", "amqp://guest:guest@127.0.0.1//"))
app.conf.update(task_acks_late=True, task_reject_on_worker_lost=True, worker_prefetch_multiplier=1,
                task_default_queue=FILE, task_ignore_result=True, broker_connection_retry_on_startup=True,
                worker_hijack_root_logger=False)


def hote() -> str:
    """Who runs a task, as the table's lease names it (``host:pid:...``): the harness reads the pid from it."""
    return f"{socket.gethostname()}:{os.getpid()}"


class _Etat:
    """One event loop, engine and delivery worker per Celery process, made at its first task: a task is not a
    process start (as a ``unionflow worker`` keeps its pool between tasks)."""

    boucle: asyncio.AbstractEventLoop | None = None
    contexte: Contexte | None = None
    livreur: LivreurNotifications | None = None


def _executer(coro: Any) -> Any:
    if _Etat.boucle is None:
        _Etat.boucle = asyncio.new_event_loop()
    return _Etat.boucle.run_until_complete(coro)


async def _contexte() -> tuple[Contexte, LivreurNotifications]:
    if _Etat.contexte is None or _Etat.livreur is None:
        settings = Settings()
        engine = create_engine(settings)
        _Etat.contexte = Contexte(engine, create_sessionmaker(engine), settings)
        _Etat.livreur = LivreurNotifications(_Etat.contexte.sessionmaker, settings)
    return _Etat.contexte, _Etat.livreur


async def _livrer(notification_id: uuid.UUID) -> str:
    ctx, livreur = await _contexte()
    async with ctx.sessionmaker() as session:
        row = await session.get(Notification, notification_id)
        await session.commit()
    # A redelivered message whose effect was recorded: nothing to do (the outbox row is the idempotence key).
    if row is None or row.statut != StatutNotification.EN_ATTENTE.value:
        return "deja"
    error: DeliveryError | None = None
    reference = None
    try:
        reference = await livreur.transports[row.canal].send(row)
    except DeliveryError as exc:
        error = exc
    await livreur._record(row.id, row.tentatives + 1, error, BilanEnvoi(), reference)
    return "envoyee" if error is None else "erreur"


async def _generer(tache_id: uuid.UUID) -> str:
    ctx, _ = await _contexte()
    async with ctx.sessionmaker() as session:
        tache = await session.get(Tache, tache_id)
        if tache is None or tache.statut == StatutTache.TERMINEE.value:
            return "deja"
        # The task row stays the API's status (GET /api/jobs/{id}): running, by whom, progress.
        tache.statut, tache.verrouillee_par, tache.date_debut = StatutTache.EN_COURS.value, hote(), utcnow()
        await session.commit()
        await session.refresh(tache)

    async def avancer(session: Any, traites: int, total: int) -> None:
        await TacheRepository(session, None).avancer(tache_id, traites, total, None)

    resultat, lien = await generation_cotisations_tache(ctx, tache, avancer)
    async with ctx.sessionmaker() as session:
        await TacheRepository(session, None).terminer(tache_id, {
            "statut": StatutTache.TERMINEE.value, "progression": 100, "resultat": resultat, "lien_resultat": lien,
            "date_fin": utcnow()})
        await session.commit()
    return "terminee"


@app.task(name="moteurs.livrer")
def livrer(notification_id: str) -> str:
    return str(_executer(_livrer(uuid.UUID(notification_id))))


@app.task(name="moteurs.generer")
def generer(tache_id: str) -> str:
    return str(_executer(_generer(uuid.UUID(tache_id))))


async def _table_rappels(stop: asyncio.Event) -> None:
    settings = Settings()
    engine = create_engine(settings)
    livreur = LivreurNotifications(create_sessionmaker(engine), settings)
    attente = float(os.environ.get("BENCH_MOTEURS_ATTENTE", "0.5"))
    try:
        while not stop.is_set():
            if not (await livreur.run()).traitees:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), attente)
    finally:
        await engine.dispose()


async def _table_generation(stop: asyncio.Event) -> None:
    settings = Settings()
    engine = create_engine(settings)
    moteur = MoteurPlanificateur(engine, settings, [], {TypeTache.GENERATION_COTISATIONS: generation_cotisations_tache})
    try:
        await moteur.run(stop)
    finally:
        await engine.dispose()


async def _table(travail: str) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await (_table_rappels if travail == "rappels" else _table_generation)(stop)


def main() -> None:
    if sys.argv[1] == "table":
        asyncio.run(_table(sys.argv[2]))
        return
    # ``celery -A bench.moteurs_travail worker -c N -Q moteurs --prefetch-multiplier 1 --without-gossip
    # --without-mingle --without-heartbeat``, started in code so that the harness owns its process.
    # Prefork, Celery's default: the tasks run in N child processes, a killed child is replaced by the parent.
    app.Worker(pool="prefork", concurrency=int(sys.argv[2]), prefetch_multiplier=1, queues=[FILE],
               loglevel=os.environ.get("BENCH_MOTEURS_LOG", "WARNING"), without_gossip=True, without_mingle=True,
               without_heartbeat=True, quiet=True, hostname=f"moteurs{os.getpid()}@{socket.gethostname()}").start()


if __name__ == "__main__":
    main()
