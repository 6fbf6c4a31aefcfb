"""Heavy reads on a PostgreSQL streaming replica (docs/decisions.md, « Lectures sur un réplica »).

``ReplicaSession`` is the session of the statement, export, consolidation and dashboard routes. It is an
autocommit session on the replica when one is configured, close enough (``database_replica_max_lag_seconds``) and
holding the caller's own recent writes; otherwise the request's usual transaction on the primary (what
``SessionDep`` gives), with a metric and, for a fault of the replica, a warning. Repositories and services do not
know which one they got.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import func, select, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.core.auth import AuthContext, authenticate, bearer_scheme
from unionflow.core.db import (
    autocommit_connection,
    autocommit_session,
    create_engine,
    create_sessionmaker,
    is_sqlite,
    request_bind,
    request_transaction,
)
from unionflow.core.metrics import REPLICA_LECTURES, REPLICA_REPLIS
from unionflow.models import AuditLog
from unionflow.models.base import utcnow

log = logging.getLogger("unionflow.replica")

# How long a process trusts its last measure of the replica (lag, up or down): one measure a second per process
# instead of one per request. A measure of the replica, not a fact about a person, so per-process memory is safe
# with any number of workers and hosts.
ETAT_SECONDES = 1.0
# The whole replica check (connect, measure) is bounded by this: a replica that does not answer costs a read at
# most this long once a second per process, then the read goes to the primary.
DELAI_SECONDES = 1.0
# Read-your-writes: the caller's audit rows younger than this plus the lag bound must all be on the replica.
# Longer than any request's transaction (each statement is bounded by the statement timeout, a request by the
# pool and proxy timeouts): a write whose audit row is older committed more than the lag bound ago, and the
# replica, at most ``database_replica_max_lag_seconds`` behind, has it.
FENETRE_ECRITURES = timedelta(minutes=5)
# A caller with more recent writes than this reads from the primary without comparing them one by one.
ECRITURES_MAX = 50

# Measured on the replica, against the primary's WAL position read just before: caught up to it, the lag is 0
# (an idle primary would otherwise make the age of the last replayed transaction look like lag); behind it, the
# age of the last transaction replayed, an upper bound of how old what the replica shows is.
_MESURE = text(
    "SELECT pg_is_in_recovery() AS en_recuperation, "
    "CASE WHEN pg_last_wal_replay_lsn() >= CAST(CAST(:position AS text) AS pg_lsn) THEN 0 "
    "ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END AS retard")
_POSITION = text("SELECT pg_current_wal_lsn()::text")
# Errors that mean « the replica cannot serve »: a driver or SQL error (down, recovery conflict, timeout).
ERREURS = (SQLAlchemyError, OSError, TimeoutError)


class Replica:
    """The replica's engine and this process's last measure of it."""

    def __init__(self, engine: AsyncEngine, retard_max: float) -> None:
        self.engine = engine
        self.sessionmaker = create_sessionmaker(engine)
        self.retard_max = retard_max
        self.etat_secondes = ETAT_SECONDES
        self._mesure: tuple[float, str | None] | None = None

    async def empechement(self, primaire: AsyncConnection) -> str | None:
        """Why the replica may not serve now (``retard``, ``indisponible``, ``pas_un_replica``), or None."""
        mesure = self._mesure
        if mesure is not None and time.monotonic() - mesure[0] < self.etat_secondes:
            return mesure[1]
        raison = await self._mesurer(primaire)
        self._mesure = (time.monotonic(), raison)
        return raison

    async def _mesurer(self, primaire: AsyncConnection) -> str | None:
        position = (await primaire.execute(_POSITION)).scalar_one()
        try:
            async with asyncio.timeout(DELAI_SECONDES), autocommit_connection(self.engine) as connection:
                ligne = (await connection.execute(_MESURE, {"position": position})).one()
        except ERREURS as exc:
            return _injoignable(exc)
        if not ligne.en_recuperation:
            # Promoted, or the URL names a primary: its data may differ from the primary's.
            log.warning("la base du réplica n'est pas en réplication: lectures sur le primaire",
                        extra={"raison": "pas_un_replica"})
            return "pas_un_replica"
        retard = None if ligne.retard is None else float(ligne.retard)
        if retard is None or retard > self.retard_max:
            log.warning("réplica en retard: lectures sur le primaire", extra={
                "raison": "retard", "retardSecondes": retard, "retardMaxSecondes": self.retard_max})
            return "retard"
        return None

    async def ecritures_manquantes(self, primaire: AsyncConnection, auth: AuthContext) -> str | None:
        """``ecriture_recente`` when some of the caller's recent writes are not on the replica yet (``indisponible``
        if it cannot tell), else None. Every write leaves an audit row naming its author in its own transaction
        (core/audit.py): the replica showing all of the caller's recent rows has replayed every transaction they
        were written in."""
        emetteur = (AuditLog.utilisateur_emetteur.is_(None) if auth.issuer is None
                    else AuditLog.utilisateur_emetteur == auth.issuer)
        recentes = select(AuditLog.id).where(AuditLog.utilisateur_id == auth.sub, emetteur,
                                             AuditLog.date_heure >= utcnow() - FENETRE_ECRITURES
                                             - timedelta(seconds=self.retard_max))
        ids = list((await primaire.execute(recentes.limit(ECRITURES_MAX + 1))).scalars())
        if not ids:
            return None
        if len(ids) > ECRITURES_MAX:
            return "ecriture_recente"
        vues = select(func.count()).select_from(AuditLog).where(AuditLog.id.in_(ids))
        try:
            async with asyncio.timeout(DELAI_SECONDES), autocommit_connection(self.engine) as connection:
                presentes = (await connection.execute(vues)).scalar_one()
        except ERREURS as exc:
            return _injoignable(exc)
        return "ecriture_recente" if presentes < len(ids) else None


def _injoignable(exc: BaseException) -> str:
    log.warning("réplica injoignable: lectures sur le primaire", extra={
        "raison": "indisponible", "erreur": f"{exc.__class__.__name__}: {exc}"[:300]})
    return "indisponible"


def creer_replica(settings: Settings) -> Replica | None:
    """The replica of ``settings`` (None: not configured). PostgreSQL only: with SQLite it is ignored, said at
    start-up. Its connections open within ``DELAI_SECONDES`` at most, whatever the primary's connect timeout."""
    if not settings.database_replica_url:
        return None
    if is_sqlite(settings.database_url) or is_sqlite(settings.database_replica_url):
        log.warning("UNIONFLOW_DATABASE_REPLICA_URL ignoré: un réplica ne se lit qu'avec PostgreSQL")
        return None
    courts = settings.model_copy(update={"database_connect_timeout_seconds": min(
        DELAI_SECONDES, settings.database_connect_timeout_seconds)})
    return Replica(create_engine(courts, settings.database_replica_url, pool_size=settings.database_pool_size),
                   settings.database_replica_max_lag_seconds)


async def replica_choisi(request: Request) -> Replica | None:
    """The replica if it may serve this request's read, else None (the primary), counted either way."""
    replica: Replica | None = getattr(request.app.state, "replica", None)
    primaire = request_bind(request)
    # The tests' harness binds every request to the test's uncommitted transaction: only the primary has it.
    if replica is None or isinstance(primaire, AsyncConnection):
        return None
    if getattr(request.state, "replica_en_echec", False):
        return None  # the route runs again after a replica error: counted when it failed
    auth = await authenticate(request, await bearer_scheme(request))
    async with autocommit_connection(primaire) as connection:
        raison = await replica.empechement(connection) or await replica.ecritures_manquantes(connection, auth)
    if raison is not None:
        REPLICA_REPLIS.labels(raison).inc()
        return None
    REPLICA_LECTURES.inc()
    return replica


def repris_sur_le_primaire(request: Request, exc: BaseException) -> bool:
    """Whether ``exc`` came from the replica session of this request: then counted, logged, and the route is to
    run once more, on the primary (core/routing.py, GuardedRoute). Only once: the second run never takes the
    replica."""
    if not getattr(request.state, "replica_servi", False) or getattr(request.state, "replica_en_echec", False):
        return False
    request.state.replica_en_echec = True
    REPLICA_REPLIS.labels("erreur").inc()
    log.warning("erreur du réplica pendant une lecture: reprise sur le primaire", extra={
        "raison": "erreur", "erreur": f"{exc.__class__.__name__}: {exc}"[:300]})
    return True


async def replica_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The session of a heavy read route: on the replica when ``replica_choisi`` says so (autocommit, each
    statement its own snapshot, as on the primary in READ COMMITTED), else the request's transaction on the
    primary exactly as ``SessionDep`` (the tests' harness, SQLite, no replica). An error of the replica makes the
    route run again on the primary (``repris_sur_le_primaire``)."""
    replica = await replica_choisi(request)
    if replica is None:
        async with request_transaction(request) as session:
            yield session
        return
    request.state.replica_servi = True
    async with autocommit_session(replica.engine) as session:
        yield session


ReplicaSession = Annotated[AsyncSession, Depends(replica_session, scope="function")]


async def export_sessionmaker(request: Request) -> async_sessionmaker[AsyncSession]:
    """Where an export's file is read from once the request's transaction (count, audit row) has committed: the
    replica's sessions when ``replica_choisi`` says so, else the primary's. Chosen before the first byte and not
    changed after: a replica failing in the second between its measure and the file cuts the file, as the
    primary failing during one does."""
    replica = await replica_choisi(request)
    return request.app.state.sessionmaker if replica is None else replica.sessionmaker


SessionsExport = Annotated[async_sessionmaker[AsyncSession], Depends(export_sessionmaker)]
