"""Per-worker cache of resolved principals (member id and memberships, or an API client's roles), and of the
organisations a global role may name in ``X-Active-Organisation-Id``.

Bounded staleness, by three means (docs/architecture.md, "Hot paths"):
- a short TTL (``UNIONFLOW_PRINCIPAL_CACHE_SECONDS``, 0 disables the cache);
- in the writing process, any session that writes a row deciding a principal (``PRINCIPAL_MODELS``) empties
  every cache of the process when it commits — and also when it flushes and when it rolls back, so that a
  reader sharing its connection (tests) never keeps what it saw; a generation counter keeps a lookup that
  started before the write from storing its old result afterwards;
- across workers and hosts on PostgreSQL, the same flush sends ``NOTIFY unionflow_principal`` inside the
  writing transaction (PostgreSQL delivers it at commit, never on rollback), and each worker's listener
  (``PrincipalListener``) empties its cache on receipt. While the listener is not connected the cache is not
  used at all, and it is emptied on every (re)connection. SQLite has no listener: in-process invalidation and
  the TTL bound the other processes.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Hashable, Sequence
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.orm import ORMExecuteState, Session

from unionflow.models import ClientApi, Membre, MembreOrganisation, Organisation

log = logging.getLogger("unionflow.principal_cache")

CHANNEL = "unionflow_principal"
MAX_ENTRIES = 10_000
# Attributes of a member that decide its principal (core/auth.py ``_member_scope``); other edits leave it alone.
MEMBRE_ATTRIBUTES = ("user_iss", "user_sub", "email", "statut")
PRINCIPAL_MODELS = (MembreOrganisation, Membre, ClientApi, Organisation)
_PRINCIPAL_TABLES = frozenset(model.__table__ for model in PRINCIPAL_MODELS)
_DIRTY = "principal_cache_dirty"

_MISSING = object()


class PrincipalCache:
    def __init__(self, ttl_seconds: float, needs_listener: bool) -> None:
        self.ttl = ttl_seconds
        self.needs_listener = needs_listener
        self.listening = False
        self.generation = 0
        self._entries: dict[Hashable, tuple[float, Any]] = {}
        _CACHES.add(self)

    @property
    def usable(self) -> bool:
        return self.ttl > 0 and (self.listening or not self.needs_listener)

    def get(self, key: Hashable) -> Any:
        """The cached value, or ``_MISSING`` (compare with ``is_missing``)."""
        if not self.usable:
            return _MISSING
        entry = self._entries.get(key)
        if entry is None:
            return _MISSING
        if entry[0] <= time.monotonic():
            self._entries.pop(key, None)
            return _MISSING
        return entry[1]

    def put(self, key: Hashable, value: Any, generation: int) -> None:
        """Store ``value`` read while the cache was at ``generation``: dropped if anything was invalidated
        since, since the value may have been read before that write committed."""
        if not self.usable or generation != self.generation:
            return
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.pop(next(iter(self._entries)))
        self._entries[key] = (time.monotonic() + self.ttl, value)

    def clear(self) -> None:
        self.generation += 1
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def is_missing(value: Any) -> bool:
    return value is _MISSING


_CACHES: weakref.WeakSet[PrincipalCache] = weakref.WeakSet()


def invalidate_all() -> None:
    """Empty every principal cache of this process (always safe: the next requests read the database)."""
    for cache in list(_CACHES):
        cache.clear()


# ------------------------------------------------------------------------------------- write-side detection

def _decides_principal(session: Session) -> bool:
    for obj in session.new:
        if isinstance(obj, PRINCIPAL_MODELS):
            return True
    for obj in session.deleted:
        if isinstance(obj, PRINCIPAL_MODELS):
            return True
    for obj in session.dirty:
        if isinstance(obj, (MembreOrganisation, ClientApi)) and session.is_modified(obj):
            if isinstance(obj, ClientApi):
                state = inspect(obj)
                # The last-use timestamp changes at every token issue and decides nothing.
                if not any(state.attrs[a].history.has_changes() for a in ("client_id", "roles",
                                                                            "organisation_ids", "actif")):
                    continue
            return True
        if isinstance(obj, Membre):
            state = inspect(obj)
            if any(state.attrs[a].history.has_changes() for a in MEMBRE_ATTRIBUTES):
                return True
    return False


def _touched(session: Session, notify: bool = True) -> None:
    session.info[_DIRTY] = True
    invalidate_all()
    connection = session.connection()
    if notify and connection.dialect.name == "postgresql":
        # Delivered to every listener when (and only if) this transaction commits.
        connection.exec_driver_sql(f"NOTIFY {CHANNEL}")


def note_writes(session: Session, tables: Sequence[Any]) -> bool:
    """For code that sends several writes as one statement (core/lot.py: data-modifying CTEs), which the
    session events below see as a SELECT: a write to a table that decides principals invalidates this process
    as usual, and True tells the caller to send the NOTIFY itself, inside that statement
    (``SELECT pg_notify(CHANNEL, '')``), instead of paying a round trip for it."""
    if any(table in _PRINCIPAL_TABLES for table in tables):
        _touched(session, notify=False)
        return True
    return False


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _context: Any) -> None:
    if _decides_principal(session):
        _touched(session)


@event.listens_for(Session, "do_orm_execute")
def _bulk_statement(state: ORMExecuteState) -> None:
    # ORM-enabled INSERT/UPDATE/DELETE statements (imports insert members in chunks) bypass the flush.
    # Core statements on their tables through a session are caught here too.
    if (state.is_insert or state.is_update or state.is_delete) \
            and getattr(state.statement, "table", None) in _PRINCIPAL_TABLES:
        _touched(state.session)


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if session.info.pop(_DIRTY, False):
        invalidate_all()


@event.listens_for(Session, "after_soft_rollback")
def _after_rollback(session: Session, previous_transaction: Any) -> None:
    # Savepoints included: a reader on this connection may have cached what the savepoint wrote.
    if session.info.get(_DIRTY):
        invalidate_all()
        if not session.in_transaction():
            session.info.pop(_DIRTY, None)


# ------------------------------------------------------------------------------------- cross-process listener

class PrincipalListener:
    """One LISTEN connection per worker (PostgreSQL). Reconnects after an outage with a capped backoff, never
    raising into the worker; the cache is unused while disconnected and emptied at each connection."""

    KEEPALIVE_SECONDS = 5.0

    def __init__(self, cache: PrincipalCache, database_url: str, connect_timeout: float) -> None:
        self.cache = cache
        self.dsn = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.connect_timeout = connect_timeout
        self.connected = asyncio.Event()
        self.server_pid: int | None = None

    async def run(self, stop: asyncio.Event) -> None:
        backoff = 0.2
        while not stop.is_set():
            try:
                await self._listen(stop)
                backoff = 0.2
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # an outage must not end the worker: retry
                log.warning("principal cache listener disconnected: %r", exc)
            await _wait_any(stop, None, backoff)
            backoff = min(backoff * 2, 5.0)

    async def _listen(self, stop: asyncio.Event) -> None:
        import asyncpg

        connection = await asyncpg.connect(self.dsn, timeout=self.connect_timeout)
        lost = asyncio.Event()
        self.server_pid = connection.get_server_pid()
        try:
            connection.add_termination_listener(lambda _conn: lost.set())
            await connection.add_listener(CHANNEL, lambda *_args: self.cache.clear())
            self.cache.clear()
            self.cache.listening = True
            self.connected.set()
            while not stop.is_set() and not lost.is_set():
                await _wait_any(stop, lost, self.KEEPALIVE_SECONDS)
                if not stop.is_set() and not lost.is_set():
                    # A silently dropped connection would otherwise never report its loss.
                    await connection.execute("SELECT 1", timeout=self.KEEPALIVE_SECONDS)
        finally:
            self.cache.listening = False
            self.server_pid = None
            self.connected.clear()
            self.cache.clear()
            if not connection.is_closed():
                connection.terminate()


async def _wait_any(stop: asyncio.Event, other: asyncio.Event | None, seconds: float) -> None:
    waiters = [asyncio.ensure_future(stop.wait())]
    if other is not None:
        waiters.append(asyncio.ensure_future(other.wait()))
    _done, pending = await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
