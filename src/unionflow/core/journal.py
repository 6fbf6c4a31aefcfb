"""Stored system logs: a logging handler that only appends to an in-memory buffer (never blocks, never touches
the database on the request path), and a writer task per process that inserts the buffer in batches and
purges records older than the retention.

Never recursive: records emitted while the writer runs (its own SQL, its own errors) and the database drivers'
records are not stored. When the buffer is full the oldest records are dropped and counted, never the request.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.core.logs import structured_fields
from unionflow.core.write_intent import sqlite_write_intent
from unionflow.models import JournalSysteme

log = logging.getLogger("unionflow.journal")

_writing: ContextVar[bool] = ContextVar("unionflow_journal_writing", default=False)
_IGNORED = ("sqlalchemy", "aiosqlite", "asyncpg", "unionflow.journal")
# Structured fields that have their own column.
_COLUMNS = {"method": "methode", "route": "route", "status": "statut", "durationMs": "duree_ms",
            "userSub": "utilisateur", "organisationId": "organisation_id"}
PURGE_EVERY_SECONDS = 3600.0


def _clip(value: Any, size: int) -> str | None:
    return None if value is None else str(value)[:size]


class JournalHandler(logging.Handler):
    def __init__(self, level: int | str, capacity: int) -> None:
        super().__init__(level)
        self.buffer: deque[dict[str, Any]] = deque(maxlen=capacity)
        self.dropped = 0

    def emit(self, record: logging.LogRecord) -> None:
        if _writing.get() or record.name.startswith(_IGNORED):
            return
        extras = structured_fields(record)
        row: dict[str, Any] = {
            "id": uuid.uuid4(), "horodatage": datetime.fromtimestamp(record.created, UTC),
            "niveau": record.levelname[:10], "logger": record.name[:200], "message": record.getMessage()[:4000],
            "request_id": _clip(getattr(record, "request_id", None), 128), "processus": record.process,
            "exception": _clip(record.exc_text, 16000),
            "utilisateur": None, "organisation_id": None, "methode": None, "route": None, "statut": None,
            "duree_ms": None,
        }
        for key, column in _COLUMNS.items():
            if key in extras:
                row[column] = extras.pop(key)
        row["utilisateur"] = _clip(row["utilisateur"], 255)
        row["organisation_id"] = _clip(row["organisation_id"], 36)
        row["route"] = _clip(row["route"], 300)
        row["contexte"] = {k: v if isinstance(v, int | float | bool | None) else str(v)
                           for k, v in extras.items()} or None
        if len(self.buffer) == self.buffer.maxlen:
            self.dropped += 1
        self.buffer.append(row)

    def drain(self, limit: int = 1000) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        while self.buffer and len(rows) < limit:
            rows.append(self.buffer.popleft())
        return rows


_handler: JournalHandler | None = None


def handler(settings: Settings) -> JournalHandler:
    """The process's one stored-logs handler (created once, shared by every app of the process)."""
    global _handler
    if _handler is None:
        _handler = JournalHandler(settings.log_store_level.upper(), settings.log_buffer_size)
    return _handler


def installed() -> JournalHandler | None:
    return _handler


class JournalWriter:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.last_purge = 0.0

    async def flush(self, sessionmaker: async_sessionmaker[AsyncSession]) -> int:
        """Insert what the buffer holds now; returns the number of records stored."""
        store = installed()
        if store is None:
            return 0
        stored = 0
        writing, intent = _writing.set(True), sqlite_write_intent.set(True)
        try:
            while rows := store.drain():
                async with sessionmaker() as session:
                    await session.execute(insert(JournalSysteme), rows)
                    await session.commit()
                stored += len(rows)
        finally:
            sqlite_write_intent.reset(intent)
            _writing.reset(writing)
        return stored

    async def purge(self, sessionmaker: async_sessionmaker[AsyncSession], now: datetime | None = None) -> int:
        cutoff = (now or datetime.now(UTC)) - timedelta(days=self.settings.log_retention_days)
        writing, intent = _writing.set(True), sqlite_write_intent.set(True)
        try:
            async with sessionmaker() as session:
                result = await session.execute(delete(JournalSysteme).where(JournalSysteme.horodatage < cutoff)
                                               .execution_options(synchronize_session=False))
                await session.commit()
                return int(getattr(result, "rowcount", 0) or 0)
        finally:
            sqlite_write_intent.reset(intent)
            _writing.reset(writing)

    async def run(self, sessionmaker: async_sessionmaker[AsyncSession], stop: asyncio.Event) -> None:
        """Flush every ``log_flush_seconds`` until ``stop`` is set, then a last time; purge hourly."""
        _writing.set(True)  # this task's own records (errors below) never feed the store
        loop = asyncio.get_running_loop()
        while True:
            stopping = False
            try:
                await asyncio.wait_for(stop.wait(), timeout=self.settings.log_flush_seconds)
                stopping = True
            except TimeoutError:
                pass
            try:
                await self.flush(sessionmaker)
                if loop.time() - self.last_purge >= PURGE_EVERY_SECONDS:
                    self.last_purge = loop.time()
                    await self.purge(sessionmaker)
            except Exception:
                # The database may be down: the records stay on stderr; the next flush retries what is new.
                log.warning("stored logs: flush failed", exc_info=True)
            if stopping:
                return

