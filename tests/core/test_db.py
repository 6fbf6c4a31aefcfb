"""Pooled connections broken while idle (database restart, firewall) are replaced before use."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from unionflow.core import db as core_db


async def _pool_with_killed_connection(settings):
    engine = core_db.create_engine(settings)
    async with engine.connect() as conn:
        pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    other = core_db.create_engine(settings)  # outside the pool under test
    try:
        async with other.connect() as killer:
            await killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            await killer.commit()
    finally:
        await other.dispose()
    return engine, pid


@pytest.mark.postgresql_only
async def test_idle_connection_is_checked_and_replaced(settings, monkeypatch):
    monkeypatch.setattr(core_db, "PING_IF_IDLE_SECONDS", 0.0)
    engine, dead_pid = await _pool_with_killed_connection(settings)
    try:
        async with engine.connect() as conn:
                assert (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one() != dead_pid
    finally:
        await engine.dispose()


@pytest.mark.postgresql_only
async def test_recently_used_connection_is_not_pinged(settings, monkeypatch):
    # Proves the check above is what saves the request: within the idle window no round trip is spent.
    monkeypatch.setattr(core_db, "PING_IF_IDLE_SECONDS", 3600.0)
    engine, _ = await _pool_with_killed_connection(settings)
    try:
        with pytest.raises(DBAPIError):
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
    finally:
        await engine.dispose()
