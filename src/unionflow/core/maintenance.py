"""Maintenance state: while a restore runs, every write on every worker and host answers 503 with Retry-After.

The flag is the ``maintenance`` row (id 1), so it is shared by every process that uses the database (a Redis
flag would not do: the check must be atomic with the writer's own transaction, which only the database gives).
How a writer is stopped, and how in-flight writes are drained before the window starts, follows each engine's
locking:

- SQLite: write requests hold the database's single write lock for their whole transaction (``BEGIN IMMEDIATE``)
  and read the flag inside it. Committing the flag therefore waits for the writer in flight, and every later one
  sees it.
- PostgreSQL: write requests take a shared advisory lock for their transaction (``pg_try_advisory_xact_lock_shared``,
  no wait); the window takes it exclusively, which waits for the writers in flight. While the exclusive lock is
  held or requested, the shared attempt fails at once: 503. The lock dies with its connection, so a crashed
  restore never leaves PostgreSQL writers refused; the row is informative there.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from datetime import timedelta

from sqlalchemy import func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from unionflow.core import reference
from unionflow.core.errors import Conflict, ServiceUnavailable, database_unavailable
from unionflow.core.write_intent import sqlite_write_intent
from unionflow.models import Maintenance
from unionflow.models.base import utcnow

FLAG_ID = 1
# Advisory lock key of the write gate ("UFMT"); any constant works as long as nothing else uses it.
WRITE_GATE_KEY = 0x55464D54
# A flag older than this is ignored: the process that set it died (dump and restore are each bounded to an hour).
MAX_WINDOW = timedelta(hours=3)
RETRY_AFTER_SECONDS = 30


def _refused(motif: str | None) -> ServiceUnavailable:
    return ServiceUnavailable(f"Service en maintenance ({motif or 'opération en cours'}): écritures suspendues, "
                              "réessayer plus tard.", retry_after=RETRY_AFTER_SECONDS, slug="maintenance")


def _is_postgresql(session: AsyncSession | AsyncConnection) -> bool:
    return session.get_bind().dialect.name == "postgresql" if isinstance(session, AsyncSession) \
        else session.dialect.name == "postgresql"


# The gate's statements, built once: every write request runs one, and building a select (its elements, then its
# cache key, which SQLAlchemy memoizes on the statement object) cost more CPU than the round trip's own work under
# the USSD bench (py-spy, docs/performance.md). The version subquery reads core/reference.py's counter.
_GATE_POSTGRESQL = select(func.pg_try_advisory_xact_lock_shared(WRITE_GATE_KEY), reference.version_subquery())
_GATE_SQLITE = select(Maintenance.actif, Maintenance.motif, Maintenance.expire_le,
                      reference.version_subquery()).where(Maintenance.id == FLAG_ID)


async def guard_write(session: AsyncSession) -> None:
    """Run first in a write request's transaction: refuses it (503) while a maintenance window is open.

    The same statement reads the version of the reference data (core/reference.py): the cached accounts,
    journals and thresholds are checked for freshness without a round trip of their own."""
    if _is_postgresql(session):
        passed, seen = (await session.execute(_GATE_POSTGRESQL)).one()
        if not passed:
            raise _refused(None)
        reference.noter_version(session, seen)
        return
    row = (await session.execute(_GATE_SQLITE)).first()
    if row is not None and row.actif and (row.expire_le is None or row.expire_le > utcnow()):
        raise _refused(row.motif)
    if row is not None:
        reference.noter_version(session, row[3])


async def writes_suspended(session: AsyncSession) -> bool:
    """For background writers (scheduled jobs, background tasks) in the transaction that claims their work: True
    while a maintenance window is open, so that nothing new starts writing into a database being restored. Taken
    in the claim's transaction, so on PostgreSQL the claim itself is drained by the window like a request."""
    try:
        await guard_write(session)
    except ServiceUnavailable:
        return True
    return False


async def _set_flag(engine: AsyncEngine, motif: str | None) -> None:
    values = ({"actif": True, "motif": motif[:200], "debut": utcnow(), "expire_le": utcnow() + MAX_WINDOW}
              if motif is not None else {"actif": False, "motif": None, "debut": None, "expire_le": None})
    stmt = update(Maintenance).where(Maintenance.id == FLAG_ID)
    if motif is not None:  # compare-and-set: of two restores started together, one gets 409
        stmt = stmt.where(or_(Maintenance.actif.is_(False), Maintenance.expire_le <= utcnow()))
    token = sqlite_write_intent.set(True)
    try:
        async with engine.connect() as conn:
            raised = (await conn.execute(stmt.values(**values).returning(Maintenance.id))).first()
            if motif is not None and raised is None:
                raise Conflict("Une maintenance (restauration) est déjà en cours")
            await conn.commit()
    finally:
        sqlite_write_intent.reset(token)


class MaintenanceWindow:
    """Opened by :func:`window`; ``end`` closes it in the caller's transaction, atomically with its last writes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.ended = False

    async def end(self, session: AsyncSession) -> None:
        """Lower the flag in ``session`` and commit it: what the maintenance wrote and the reopening of writes
        become visible together. The one commit outside ``get_session``: the restore replaced the database, and
        its request transaction cannot span that."""
        await session.execute(update(Maintenance).where(Maintenance.id == FLAG_ID)
                              .values(actif=False, motif=None, debut=None, expire_le=None))
        await session.commit()
        self.ended = True


@contextlib.asynccontextmanager
async def window(engine: AsyncEngine, motif: str) -> AsyncIterator[MaintenanceWindow]:
    """Refuse new writes, wait for the ones in flight, and yield once no write transaction is running anywhere.

    The caller's own session must hold no transaction when entering (on SQLite it would hold the write lock)."""
    await _set_flag(engine, motif)
    state = MaintenanceWindow(engine)
    gate: AsyncConnection | None = None
    try:
        if engine.dialect.name == "postgresql":
            gate = await engine.connect()
            try:
                # Bounded by the statement timeout: writes that do not finish by then abort the maintenance.
                await gate.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": WRITE_GATE_KEY})
            except Exception as exc:
                if not database_unavailable(exc):
                    raise
                raise ServiceUnavailable("Des écritures en cours ne se sont pas terminées à temps: maintenance "
                                         "non commencée, réessayer.", retry_after=RETRY_AFTER_SECONDS,
                                         slug="maintenance") from exc
        yield state
    finally:
        try:
            if gate is not None:
                await gate.close()  # ends its transaction: the advisory lock is released
        finally:
            if not state.ended:
                await _set_flag(engine, None)


def copy_sqlite_flag(live_path: str, target_path: str) -> None:
    """Carry the live flag into a SQLite file about to replace the live one, so that the replacement comes up
    in maintenance (no writer slips in between the copy and the end of the window)."""
    with closing(sqlite3.connect(live_path)) as live:
        row = live.execute("SELECT actif, motif, debut, expire_le FROM maintenance WHERE id = ?",
                           (FLAG_ID,)).fetchone()
    if row is None:
        return
    with closing(sqlite3.connect(target_path)) as target:
        target.execute("UPDATE maintenance SET actif = ?, motif = ?, debut = ?, expire_le = ? WHERE id = ?",
                       (*row, FLAG_ID))
        target.commit()
