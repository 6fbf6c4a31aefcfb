"""Attempt limits (login, password change): fixed windows shared by every worker.

Counters live in Redis when ``redis_url`` is set, otherwise in the ``login_throttle`` table. Only failures
count; a key over ``login_max_attempts`` failures inside the window answers 429 with ``Retry-After`` until the
window ends. Failures are recorded outside the request's transaction (which rolls back on the error), after it
has been rolled back, so that SQLite never waits on its own write lock.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from typing import Protocol, TypeVar

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.auth.repository import LoginThrottleRepository
from unionflow.config import Settings
from unionflow.core.db import autocommit_session, read_only_session, sqlite_write_intent
from unionflow.core.errors import TooManyRequests, UnionFlowError

T = TypeVar("T")
PURGE_ONE_IN = 50


def _key(kind: str, value: str) -> str:
    # Hashed so that neither Redis nor the table stores e-mail addresses in clear.
    return f"{kind}:{hashlib.sha256(value.strip().lower().encode()).hexdigest()}"


class CounterStore(Protocol):
    async def retry_after(self, key: str, limit: int) -> int | None:
        """Seconds until ``key`` may try again, or None when under the limit."""
        ...

    async def failure(self, key: str, window: int) -> None: ...

    async def compter(self, key: str, limit: int, window: int) -> int | None:
        """Counts one call of ``key`` (every call, not only failures); seconds until its window ends when this
        call is over ``limit``, else None. One round trip: it runs before each phone gateway callback."""
        ...

    async def reset(self, key: str, session: AsyncSession) -> None: ...


class RedisCounters:
    def __init__(self, url: str, prefix: str = "unionflow:throttle:") -> None:
        import redis.asyncio as redis

        self.client = redis.from_url(url)
        self.prefix = prefix

    async def retry_after(self, key: str, limit: int) -> int | None:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.get(self.prefix + key)
            pipe.ttl(self.prefix + key)
            count, ttl = await pipe.execute()
        if count is not None and int(count) >= limit and ttl and ttl > 0:
            return int(ttl)
        return None

    async def failure(self, key: str, window: int) -> None:
        async with self.client.pipeline(transaction=True) as pipe:
            # The expiry is set only by the first failure: the window is fixed, not sliding.
            pipe.set(self.prefix + key, 0, ex=window, nx=True)
            pipe.incr(self.prefix + key)
            await pipe.execute()

    async def compter(self, key: str, limit: int, window: int) -> int | None:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self.prefix + key, 0, ex=window, nx=True)
            pipe.incr(self.prefix + key)
            pipe.ttl(self.prefix + key)
            _, count, ttl = await pipe.execute()
        return max(int(ttl), 1) if int(count) > limit else None

    async def reset(self, key: str, session: AsyncSession) -> None:
        await self.client.delete(self.prefix + key)


class DatabaseCounters:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], window: int) -> None:
        self.sessionmaker = sessionmaker
        self.window = window

    async def retry_after(self, key: str, limit: int) -> int | None:
        async with read_only_session(self.sessionmaker) as session:
            row = await LoginThrottleRepository(session).get_by_key(key)
        if row is None or row.failures < limit:
            return None
        left = (row.window_start + timedelta(seconds=self.window) - datetime.now(UTC)).total_seconds()
        return math.ceil(left) if left > 0 else None

    async def failure(self, key: str, window: int) -> None:
        intent = sqlite_write_intent.set(True)  # BEGIN IMMEDIATE: queue behind other writers, never deadlock
        try:
            await self._failure(key, window, datetime.now(UTC))
        finally:
            sqlite_write_intent.reset(intent)

    async def compter(self, key: str, limit: int, window: int) -> int | None:
        intent = sqlite_write_intent.set(True)
        try:
            now = datetime.now(UTC)
            count, start = await self._failure(key, window, now)
        finally:
            sqlite_write_intent.reset(intent)
        if count <= limit:
            return None
        left = (start + timedelta(seconds=window) - now).total_seconds()
        return max(math.ceil(left), 1)

    async def _failure(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        async with self._session() as session:
            repository = LoginThrottleRepository(session)
            counted = await repository.increment_failures(key, now, window)
            if secrets.randbelow(PURGE_ONE_IN) == 0:
                # Spraying random e-mails creates one row each: expired rows are swept now and then.
                await repository.delete_started_before(now - timedelta(seconds=max(window, self.window)),
                                                       inclusive=True)
            await session.commit()
        return counted

    def _session(self) -> AbstractAsyncContextManager[AsyncSession]:
        """PostgreSQL: autocommit, each statement atomic on its own (the upsert counts without losing a concurrent
        count), so a phone gateway's callback pays one round trip for its count instead of three (BEGIN, upsert,
        COMMIT). SQLite keeps a transaction begun IMMEDIATE: there an implicit write transaction can fail at once
        on a stale snapshot (SQLITE_BUSY_SNAPSHOT) instead of queueing behind the other writers."""
        bind = self.sessionmaker.kw.get("bind")
        if bind is not None and bind.dialect.name == "postgresql":
            return autocommit_session(bind)
        return self.sessionmaker()

    async def reset(self, key: str, session: AsyncSession) -> None:
        # In the request's own transaction: a second session would wait on SQLite's write lock.
        await LoginThrottleRepository(session).delete_key(key)


def counter_store(request: Request) -> CounterStore:
    settings: Settings = request.app.state.settings
    store = getattr(request.app.state, "throttle_store", None)
    if store is not None:
        return store
    if settings.redis_url:
        store = RedisCounters(settings.redis_url)
        request.app.state.throttle_store = store
        return store
    # Not cached: tests swap the app's sessionmaker per test.
    return DatabaseCounters(request.app.state.sessionmaker, settings.login_window_seconds)


# Mobile operators put many subscribers behind one carrier-grade NAT address: the per-address limit is this many
# times the per-account one, enough to stop one source spraying passwords without locking out a whole network.
IP_LIMIT_FACTOR = 10


class AttemptLimiter:
    """Guards one kind of attempt (login, password change) under several keys (e-mail, client IP, subject),
    each with its own limit."""

    def __init__(self, request: Request, kind: str) -> None:
        self.settings: Settings = request.app.state.settings
        self.store = counter_store(request)
        self.kind = kind

    @property
    def limit(self) -> int:
        return self.settings.login_max_attempts

    def key(self, dimension: str, value: str) -> str:
        return _key(f"{self.kind}:{dimension}", value)

    async def check(self, keys: list[tuple[str, int]]) -> None:
        waits = [w for key, limit in keys if (w := await self.store.retry_after(key, limit))]
        if waits:
            wait = max(waits)
            raise TooManyRequests(f"Trop de tentatives: réessayez dans {wait} secondes",
                                  headers={"Retry-After": str(wait)})

    async def attempt(self, session: AsyncSession, keys: list[tuple[str, int]], reset_keys: list[str],
                      action: Callable[[], Awaitable[T]], failure: type[UnionFlowError]) -> T:
        """Run ``action`` unless a key is over its limit; a ``failure`` error counts against every key,
        success clears ``reset_keys``."""
        await self.check(keys)
        try:
            result = await action()
        except failure:
            await session.rollback()
            for key, _limit in keys:
                await self.store.failure(key, self.settings.login_window_seconds)
            raise
        for key in reset_keys:
            await self.store.reset(key, session)
        return result


def client_ip(request: Request) -> str:
    # Behind a reverse proxy, run uvicorn with --proxy-headers so that this is the real client address.
    return request.client.host if request.client else "unknown"
