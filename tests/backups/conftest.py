"""A throwaway database and app for restore tests: a restore replaces the whole database, so it never runs
against the shared test database (whose per-test transaction it would also have to end)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from tests.conftest import BACKEND, PG_ADMIN_URL, _pg_dsn
from tests.factories import Actor, Factory
from unionflow.app import create_app
from unionflow.auth import keys
from unionflow.config import Settings
from unionflow.migrations.alembic import upgrade


@dataclass
class Throwaway:
    app: FastAPI
    client: httpx.AsyncClient
    factory: Factory
    settings: Settings

    async def admin(self) -> Actor:
        actor = await self.factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
        # Signing the token opened a read transaction: end it, or a PostgreSQL restore waits on its locks.
        await self.factory.session.rollback()
        return actor


async def _pg(sql: str) -> None:
    conn = await asyncpg.connect(_pg_dsn(PG_ADMIN_URL))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
async def throwaway(tmp_path: Path) -> AsyncIterator[Throwaway]:
    name = f"unionflow_restore_{uuid.uuid4().hex[:12]}"
    if BACKEND == "postgresql":
        await _pg(f'CREATE DATABASE "{name}"')
        url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    else:
        url = f"sqlite:///{tmp_path / (name + '.db')}"
    try:
        await asyncio.to_thread(upgrade, url)
        settings = Settings(database_url=url, data_dir=tmp_path / "data", public_base_url="http://testserver",
                            argon2_time_cost=1, argon2_memory_cost=1024)
        app = create_app(settings)
        async with app.state.sessionmaker() as session:
            await keys.ensure_signing_key(session)
            await session.commit()
        try:
            async with app.state.sessionmaker() as session, httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
                yield Throwaway(app, client, Factory(session, settings, commit=True), settings)
        finally:
            await app.state.engine.dispose()
    finally:
        if BACKEND == "postgresql":
            await _pg(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
