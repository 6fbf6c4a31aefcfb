"""Per-worker cache of the reference data a payment reads (docs/architecture.md, "Payment write path").

Default accounts and journals of an organisation, its accounting lock date, its LCB-FT thresholds, the
configuration entries, its webhook subscriptions: read by every payment, changed a few times a year. Reading
them costs a round trip each; here they are kept in process memory, as immutable values (never ORM objects).

Freshness, without a round trip of its own:
- **Across workers and hosts**: every change to one of ``TABLES`` made through a session bumps the counter row
  ``compteur[VERSION]`` in the same transaction (session events below: nobody has to remember to call
  anything). Every write request reads that version in the statement it already runs first, the maintenance
  gate (``core/maintenance.guard_write``), and a worker that sees a newer version drops its whole cache. A
  request thus sees reference data at least as recent as its first statement, as if it had read them then.
- **In the writing process**: the cache is dropped after the commit of a change; a transaction that changed
  reference data neither reads nor fills the cache (its own uncommitted rows must not be shared).
- **Bound**: entries also expire after ``UNIONFLOW_REFERENCE_CACHE_SECONDS`` (30 s by default, 0 turns the
  cache off), which covers changes made outside the application (SQL by hand); a restore bumps the version.
- Requests without the version (reads, background jobs with their own sessions) do not use the cache.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import event, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.inspection import inspect
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction
from sqlalchemy.sql.selectable import ScalarSelect

from unionflow.config import get_settings
from unionflow.models import Compteur

VERSION = "version.donnees_reference"
TABLES = frozenset({"compte_comptable", "journal_comptable", "verrou_comptable", "parametres_lcb_ft",
                    "configuration_entry", "abonnement_webhook", "compte_produit",
                    "tresorerie"})
# New rows here change nothing cached: readers take a missing account or journal as "look in the database"
# (``rafraichir``), so the first payment of each organisation, which opens them, invalidates no worker.
INSERTS_SANS_VERSION = frozenset({"compte_comptable", "journal_comptable"})
# session.info keys: the version this request read first; whether this transaction changed reference data.
SESSION_VERSION = "version_reference"
SESSION_CHANGED = "reference_modifiee"

T = TypeVar("T")


class _Cache:
    def __init__(self) -> None:
        self.version = -1
        self.entries: dict[Hashable, tuple[float, Any]] = {}

    def clear(self) -> None:
        self.entries.clear()


_cache = _Cache()


def version_subquery() -> ScalarSelect[int]:
    """The version as a scalar subquery, folded into a statement the request runs anyway."""
    return select(Compteur.valeur).where(Compteur.nom == VERSION).scalar_subquery()


def noter_version(session: AsyncSession, version: int | None) -> None:
    session.info[SESSION_VERSION] = int(version or 0)


async def lire(session: AsyncSession, key: Hashable, load: Callable[[], Awaitable[T]]) -> T:
    """``key``'s value from this worker's cache, else ``load()`` (and kept when it may be shared)."""
    ttl = get_settings().reference_cache_seconds
    version = session.info.get(SESSION_VERSION)
    if ttl <= 0 or version is None or session.info.get(SESSION_CHANGED):
        return await load()
    if version != _cache.version:
        # Any other version (a newer one, or, briefly, an older one from a request that started before a change
        # another request already saw): what was kept may not match it.
        _cache.clear()
        _cache.version = version
    now = time.monotonic()
    hit = _cache.entries.get(key)
    if hit is not None and now - hit[0] < ttl:
        return hit[1]
    return await rafraichir(session, key, load)


async def rafraichir(session: AsyncSession, key: Hashable, load: Callable[[], Awaitable[T]]) -> T:
    """``load()`` now, and keep it in the cache under the request's version when it may be shared."""
    version = session.info.get(SESSION_VERSION)
    now = time.monotonic()
    value = await load()
    # Kept only if no request of another version switched the cache while this one was loading.
    if version is not None and _cache.version == version and not session.info.get(SESSION_CHANGED):
        _cache.entries[key] = (now, value)
    return value


def version_apres_restauration(counters: dict[str, int]) -> dict[str, int]:
    """Counters to put back after a restore: the version strictly above every version seen before it, so that
    every worker drops what it read from the replaced database."""
    return {**counters, VERSION: counters.get(VERSION, 0) + 1}


# --- change tracking (every session of the application) ------------------------------------------------------

def _mark(session: Session) -> None:
    session.info[SESSION_CHANGED] = True
    # Dropped at the write too, not only after the commit: anything cached before it may be what it replaces.
    # Costs nothing (reference data changes a few times a year) and keeps sessions sharing one connection (the
    # tests' harness, a CLI command's nested work) consistent with what they just wrote.
    _cache.clear()


@event.listens_for(Session, "before_flush")
def _before_flush(session: Session, _tx: UOWTransaction, _instances: Any) -> None:
    for obj in session.new:
        if inspect(obj).mapper.local_table.name in TABLES - INSERTS_SANS_VERSION:
            _mark(session)
            return
    for obj in (*session.dirty, *session.deleted):
        if inspect(obj).mapper.local_table.name in TABLES:
            _mark(session)
            return


@event.listens_for(Session, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        name = getattr(getattr(state.statement, "table", None), "name", None)
        if name in (TABLES - INSERTS_SANS_VERSION if state.is_insert else TABLES):
            _mark(state.session)


@event.listens_for(Session, "before_commit")
def _bump(session: Session) -> None:
    # Savepoints commit and roll back too: only the transaction itself counts.
    if session.in_nested_transaction():
        return
    # The commit's own flush comes after this event: run it now, so that its changes are seen (before_flush).
    session.flush()
    if not session.info.get(SESSION_CHANGED):
        return
    # Runs inside the commit, on the transaction's connection: other workers see the new version exactly when
    # they can see the change.
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    stmt = insert(Compteur).values(nom=VERSION, valeur=1)
    session.execute(stmt.on_conflict_do_update(index_elements=[Compteur.nom],
                                               set_={"valeur": Compteur.valeur + 1}))


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if session.in_nested_transaction():
        return
    if session.info.pop(SESSION_CHANGED, None):
        _cache.clear()
    session.info.pop(SESSION_VERSION, None)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    if session.in_nested_transaction():
        return
    session.info.pop(SESSION_CHANGED, None)
    session.info.pop(SESSION_VERSION, None)
