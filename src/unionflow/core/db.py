"""Engine, sessions and the request-scoped transaction."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from starlette.requests import Request

from unionflow.config import Settings
from unionflow.core import maintenance
from unionflow.core.errors import Conflict
from unionflow.core.write_intent import ecrit, sqlite_write_intent

# Execution option of an SQLite connection on which the begin hook sends no BEGIN (autocommit_connection). Not the
# driver's AUTOCOMMIT level: resetting it on return to the pool would hand transactions back to the sqlite3 module.
NO_BEGIN = "unionflow_no_begin"


def async_url(url: str) -> str:
    """Accept plain sqlite:/// or postgresql:// URLs and pick the async driver."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    elif backend in {"postgresql", "postgres"}:
        parsed = parsed.set(drivername="postgresql+asyncpg")
    return parsed.render_as_string(hide_password=False)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _install_sqlite_hooks(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin (savepoints work).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on disk before it is acknowledged, power loss or OS crash included; NORMAL in WAL
        # mode may lose the last commits then. A ledger cannot (docs/operations.md, "Durabilité").
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        if conn.get_execution_options().get(NO_BEGIN):
            return  # autocommit_connection: each statement is its own transaction
        conn.exec_driver_sql("BEGIN IMMEDIATE" if sqlite_write_intent.get() else "BEGIN")


# A pooled connection idle for longer than this is checked before use (see _install_idle_ping).
PING_IF_IDLE_SECONDS = 10.0


def _install_idle_ping(engine: AsyncEngine, timeout: float) -> None:
    """Check a pooled connection before use only when it sat idle, instead of ``pool_pre_ping`` on every checkout.

    With asyncpg, SQLAlchemy's pre-ping is three round trips (BEGIN, ``;``, ROLLBACK): a quarter of a worker's
    CPU on an authenticated read (bench, docs/performance.md). Connections that idle are the ones a database
    restart or a firewall silently breaks; one that served a request seconds ago is checked by use, and a
    failure there still invalidates the whole pool (SQLAlchemy's disconnect handling), as before.

    The ping has its own ``timeout``. A ping that times out means a frozen server: the connection is dropped and
    the request fails at once (503). Not a ``DisconnectionError`` there: SQLAlchemy would close the connection
    politely, open a new one to the same frozen server and run the request on it, three waits in a row (17.5 s
    seen with the default timeouts where docs/operations.md promises 10.5 s). A ping that
    fails otherwise (the server restarted and closed the connection) reconnects once, as SQLAlchemy does.
    """

    @event.listens_for(engine.sync_engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["checked_in_at"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        checked_in_at = record.info.pop("checked_in_at", None)
        if checked_in_at is None or time.monotonic() - checked_in_at < PING_IF_IDLE_SECONDS:
            return
        driver = record.driver_connection
        try:
            # One round trip outside any transaction (this connection has none open at checkout).
            dbapi_connection.await_(driver.fetchrow(";", timeout=timeout))
        except TimeoutError as exc:
            driver.terminate()  # no polite close either: the server would not answer it
            raise TimeoutError(f"base de données muette: pas de réponse au ping en {timeout:g} s") from exc
        except Exception as exc:
            # The pool discards this connection and opens another one (once).
            raise DisconnectionError("idle pooled connection is gone") from exc


def _install_timeout_invalidation(engine: AsyncEngine) -> None:
    """A statement that hit the client-side timeout left its connection mid-protocol with a server that does not
    answer: drop that connection at once instead of sending it a ROLLBACK that would wait out the timeout again.
    Only this connection: the others find out by themselves (idle ping, their own timeout)."""

    @event.listens_for(engine.sync_engine, "handle_error")
    def _on_error(context: Any) -> None:
        if isinstance(context.original_exception, TimeoutError):
            context.is_disconnect = True
            context.invalidate_pool_on_disconnect = False
            # Close the socket now; SQLAlchemy's invalidation would otherwise try a polite close first (2 s more).
            driver = context.connection.connection.driver_connection if context.connection else None
            if driver is not None:
                driver.terminate()


def create_engine(settings: Settings, url: str | None = None, pool_size: int | None = None) -> AsyncEngine:
    target = async_url(url or settings.database_url)
    if is_sqlite(target):
        db_path = make_url(target).database
        if db_path and db_path != ":memory:":
            from pathlib import Path

            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(target, echo=settings.database_echo)
        _install_sqlite_hooks(engine)
        return engine
    # Same ceiling as before (2 × database_pool_size per process), but every connection stays pooled: overflow
    # connections are closed on return and reopened at the next burst, and with more concurrent requests than
    # pool_size that churn (a new PostgreSQL backend process, a TLS attempt) cost a third of the throughput of an
    # authenticated read (bench, docs/performance.md). Connections are still opened only when needed.
    # Bounded waits everywhere, so that a database that is down or frozen answers 503 instead of hanging: connect
    # (asyncpg ``timeout``), pool checkout (``pool_timeout``), each statement on the server (``statement_timeout``)
    # and on the client (``command_timeout``: a frozen server never sends the cancellation).
    # ``synchronous_commit`` is forced on: a commit is acknowledged once on disk, whatever the server default.
    statement_ms = int(settings.database_statement_timeout_seconds * 1000)
    engine = create_async_engine(
        target,
        echo=settings.database_echo,
        pool_size=pool_size or 2 * settings.database_pool_size,
        max_overflow=0,
        pool_timeout=settings.database_pool_timeout_seconds,
        connect_args={
            "timeout": settings.database_connect_timeout_seconds,
            # Just over the server's limit, so that a slow query is cancelled cleanly by the server first.
            "command_timeout": settings.database_statement_timeout_seconds + 0.5,
            "server_settings": {"statement_timeout": str(statement_ms), "synchronous_commit": "on"},
        },
    )
    # A ping answers in milliseconds; waiting for it longer than for a connection to open would only delay the 503.
    _install_idle_ping(engine, min(settings.database_connect_timeout_seconds,
                                   settings.database_statement_timeout_seconds + 0.5))
    _install_timeout_invalidation(engine)
    return engine


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=True)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One transaction per request: committed after the endpoint returns, before the response is sent.

    Services never commit; a domain error raised anywhere rolls the whole request back.
    Declared with ``scope="function"`` at use sites so the commit happens before sending.
    """
    async with request_transaction(request) as session:
        yield session


@contextlib.asynccontextmanager
async def request_transaction(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction (``get_session``'s body): the maintenance gate first when it writes, committed on
    the way out, rolled back on any exception."""
    sessionmaker: async_sessionmaker[AsyncSession] = request.app.state.sessionmaker
    writes = ecrit(request.method, request.url.path)
    token = sqlite_write_intent.set(writes)
    try:
        async with sessionmaker() as session:
            try:
                if request.method not in {"GET", "HEAD", "OPTIONS"}:
                    await maintenance.guard_write(session)
                yield session
                await session.commit()
            except BaseException:
                await session.rollback()
                raise
    finally:
        sqlite_write_intent.reset(token)


# The request's transaction (get_session), the dependency of every route that writes.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


@contextlib.asynccontextmanager
async def read_only_session(sessionmaker: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A side session for reads (key lookups) that must not queue behind SQLite writers."""
    token = sqlite_write_intent.set(False)
    try:
        async with sessionmaker() as session:
            yield session
    finally:
        sqlite_write_intent.reset(token)


@contextlib.asynccontextmanager
async def autocommit_connection(bind: AsyncEngine | AsyncConnection) -> AsyncIterator[AsyncConnection]:
    """A connection without BEGIN/COMMIT for read-only work: each statement runs in its own implicit
    transaction (PostgreSQL ``AUTOCOMMIT``; SQLite with the begin hook silenced, a plain read in WAL mode).

    ``bind`` may be a connection already in a transaction (the tests' harness, see ``read_connection``): the
    work then runs in a savepoint of it, so a failing statement cannot poison the outer transaction.
    """
    if isinstance(bind, AsyncConnection):
        async with bind.begin_nested():
            yield bind
        return
    token = sqlite_write_intent.set(False)
    try:
        async with bind.connect() as connection:
            if bind.dialect.name == "sqlite":
                await connection.execution_options(**{NO_BEGIN: True})
            else:
                await connection.execution_options(isolation_level="AUTOCOMMIT")
            yield connection
    finally:
        sqlite_write_intent.reset(token)


def autocommits(connection: AsyncConnection) -> bool:
    """The connection came from ``autocommit_connection`` on an engine (not a savepoint of a test)."""
    options = connection.sync_connection.get_execution_options() if connection.sync_connection else {}
    return bool(options.get(NO_BEGIN) or options.get("isolation_level") == "AUTOCOMMIT")


def request_bind(request: Request) -> AsyncEngine | AsyncConnection:
    """What the request's session would be bound to: the engine, or the connection the tests' harness binds the
    sessionmaker to (every request of a test then sees that test's uncommitted rows)."""
    bind = request.app.state.sessionmaker.kw.get("bind")
    return bind if isinstance(bind, AsyncConnection) else request.app.state.engine


async def read_connection(request: Request) -> AsyncIterator[AsyncConnection]:
    """Dependency of the session-free read routes (docs/architecture.md, "Read path"): no ORM session, no
    BEGIN/COMMIT; a database outage raises from here and answers 503 like any other (core/errors.py). The
    authorizer's principal lookup (on a cache miss) has returned its own short connection before this one is
    taken, so a request never holds two pooled connections."""
    async with autocommit_connection(request_bind(request)) as connection:
        yield connection


ReadConnection = Annotated[AsyncConnection, Depends(read_connection, scope="function")]


async def read_session(request: Request) -> AsyncIterator[AsyncSession]:
    """An ORM session on an autocommit connection, for GET routes that only read (no audit row, no other write):
    no BEGIN/COMMIT. Each statement sees what was committed when it started, so a page and its count may come
    from two snapshots (docs/decisions.md, "lectures"); a route that writes keeps ``SessionDep``."""
    async with autocommit_session(request_bind(request)) as reader:
        yield reader


@contextlib.asynccontextmanager
async def autocommit_session(bind: AsyncEngine | AsyncConnection) -> AsyncIterator[AsyncSession]:
    """An ORM session on an autocommit connection (``autocommit_connection``): each statement is its own
    transaction, without the BEGIN and COMMIT round trips. For reads, and for one atomic statement that needs no
    transaction around it (a counter's upsert)."""
    if isinstance(bind, AsyncConnection):
        # The tests' harness: join whatever transaction the request's other session holds on that connection
        # (its savepoints open and close around ours, not inside).
        async with AsyncSession(bind=bind, expire_on_commit=False, autoflush=False,
                                join_transaction_mode="rollback_only") as joined:
            yield joined
        return
    async with (autocommit_connection(bind) as connection,
                AsyncSession(bind=connection, expire_on_commit=False, autoflush=False) as session):
        yield session


ReadSession = Annotated[AsyncSession, Depends(read_session, scope="function")]


def principal_bind(request: Request) -> AsyncEngine | AsyncConnection:
    """Where authentication reads: its own small pool. A write request may hold a session connection while it is
    authenticated; taking the lookup's connection from that same pool would let a burst of such requests hold
    every connection while each waits for one more (pool timeout, 503)."""
    bind = request_bind(request)
    return request.app.state.principal_engine if bind is request.app.state.engine else bind


async def flush_unique(session: AsyncSession, conflict: str, *new: object) -> None:
    """Add ``new`` and flush inside a savepoint: a unique-constraint violation (a duplicate, or a concurrent
    twin that passed the same pre-check) answers 409 with ``conflict`` and leaves the request's transaction
    usable, instead of a 500."""
    from sqlalchemy.exc import IntegrityError

    try:
        async with session.begin_nested():
            session.add_all(new)
            await session.flush()
    except IntegrityError as exc:
        raise Conflict(conflict) from exc
