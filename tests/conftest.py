"""Test harness: a real migrated database (SQLite by default, PostgreSQL with UNIONFLOW_TEST_DATABASE=postgresql),
the real ASGI app over httpx, and per-test rollback (each request runs in a savepoint of the test's
transaction). Tests that need real commits across connections (concurrency) use ``committed_db``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from hypothesis import settings as hypothesis_settings
from sqlalchemy import delete
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.factories import Factory
from unionflow import models
from unionflow.app import create_app
from unionflow.auth import keys
from unionflow.config import Settings
from unionflow.migrations.alembic import upgrade

# Cheap password hashing in tests (read by unionflow.core.passwords through the settings).
os.environ.setdefault("UNIONFLOW_ARGON2_TIME_COST", "1")
os.environ.setdefault("UNIONFLOW_ARGON2_MEMORY_COST", "1024")
# Statistics are asserted right after the writes that change them; the cache has its own test.
os.environ.setdefault("UNIONFLOW_STATISTICS_CACHE_SECONDS", "0")

# Property tests: a failure prints its example in full (the schemathesis pytest plugin, which blanks Hypothesis's
# printer, is disabled in pyproject.toml), the blob that replays it (@reproduce_failure), and is saved in the example
# database (.hypothesis/examples), which the next run replays first.
hypothesis_settings.register_profile("unionflow", print_blob=True)
hypothesis_settings.load_profile("unionflow")

PG_ADMIN_URL = os.environ.get("UNIONFLOW_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
BACKEND = os.environ.get("UNIONFLOW_TEST_DATABASE", "sqlite")
# Rows that committed_db must not empty: signing keys, and reference data seeded by migrations.
KEPT_TABLES = {"signing_key", "type_reference"}


# The slowest tests (≥ 25 s each on 2 cores: property tests over many random sequences, every role combination,
# browsers, spawned servers and workers, volume imports). `make test-fast` leaves them out for the inner loop;
# `make test` runs everything. One list, by path prefix, so that a moved test keeps its mark by moving here.
LENTS = (
    "tests/controles/test_proprietes_controles.py",
    "tests/core/test_principal_cache_workers.py",
    "tests/core/test_replica.py",
    "tests/security/test_combined_roles.py",
    "tests/federation/test_propriete_consolidation.py",
    "tests/cotisations/test_synthese.py::test_summary_statistics_equal_the_dues_whatever_the_writes",
    "tests/console/test_browser",
    "tests/imports/test_import_membres.py::test_xlsx_file_and_ten_thousand_lines",
    "tests/core/test_dispatch.py::test_the_index_chooses_what_the_linear_scan_chooses",
    "tests/test_generated_client.py",
    "tests/test_bench_generation.py",
    "tests/cli/",
    "tests/tresoreries/test_propriete_tresoreries.py",
    "tests/tasks/test_moteurs.py",
)
LENTS_PROPRIETES = ("invariants", "propriete", "proprietes")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgresql_only: needs PostgreSQL (row locks, real parallelism)")
    config.addinivalue_line("markers", "lent: slow test, left out by `make test-fast` (tests/conftest.py LENTS)")


def _lent(nodeid: str) -> bool:
    fichier = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    return nodeid.startswith(LENTS) or any(mot in fichier for mot in LENTS_PROPRIETES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _lent(item.nodeid):
            item.add_marker(pytest.mark.lent)
    if BACKEND != "postgresql":
        skip = pytest.mark.skip(reason="PostgreSQL only (run with UNIONFLOW_TEST_DATABASE=postgresql)")
        for item in items:
            if "postgresql_only" in item.keywords:
                item.add_marker(skip)


def _pg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextlib.contextmanager
def scratch_pg_database(prefix: str) -> Iterator[str]:
    """A PostgreSQL database of its own (created empty, dropped afterwards, even with connections left)."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = _pg_dsn(PG_ADMIN_URL)

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if BACKEND == "postgresql":
        with scratch_pg_database("unionflow_test") as url:
            upgrade(url)
            yield url
    else:
        path = tmp_path_factory.mktemp("db") / "unionflow-test.db"
        url = f"sqlite:///{path}"
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data_dir: Path = tmp_path_factory.mktemp("data")
    return Settings(
        database_url=database_url,
        data_dir=data_dir,
        public_base_url="http://testserver",
        argon2_time_cost=1,
        argon2_memory_cost=1024,
        bootstrap_admin_password="bootstrap-password-123",
        wave_api_key="wave-test-key",
        wave_webhook_secret="wave-test-webhook-secret",
        # Volume tests insert hundreds of thousands of rows in one statement on a machine shared with other
        # work; the outage tests set their own tight bounds.
        database_statement_timeout_seconds=120,
    )


@pytest.fixture(scope="session")
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(settings)
    async with application.state.sessionmaker() as session:
        await keys.ensure_signing_key(session)
        await session.commit()
    yield application
    await application.state.engine.dispose()
    await application.state.principal_engine.dispose()


@pytest.fixture
async def db(app: FastAPI) -> AsyncIterator[AsyncSession]:
    """Session on the test's own transaction; the app's requests run in savepoints of it; rolled back after."""
    real = app.state.sessionmaker
    async with app.state.engine.connect() as connection:
        transaction = await connection.begin()
        scoped = async_sessionmaker(bind=connection, join_transaction_mode="create_savepoint",
                                    expire_on_commit=False)
        app.state.sessionmaker = scoped
        try:
            async with scoped() as session:
                yield session
        finally:
            app.state.sessionmaker = real
            await transaction.rollback()


@pytest.fixture
async def committed_db(app: FastAPI) -> AsyncIterator[AsyncSession]:
    """Real commits, real concurrency; every table emptied afterwards (signing keys kept)."""
    async with app.state.sessionmaker() as session:
        yield session
    async with app.state.sessionmaker() as session:
        for table in reversed(models.Base.metadata.sorted_tables):
            if table.name not in KEPT_TABLES:
                await session.execute(delete(table))
        # Deleting the dues and the entries appended their deltas and touched the members' dates (triggers,
        # migrations 0013, 0046 and 0047): the summaries are emptied after them.
        await session.execute(delete(models.CotisationSyntheseDelta))
        await session.execute(delete(models.CotisationSynthese))
        await session.execute(delete(models.CotisationMembreSynthese))
        await session.execute(delete(models.SoldeCompteMoisDelta))
        await session.execute(delete(models.SoldeCompteMois))
        # Singleton rows the migrations seed: put them back with their defaults.
        session.add_all([models.AlerteConfig(id=1), models.SauvegardeConfig(id=1), models.Maintenance(id=1)])
        await session.commit()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def factory(app: FastAPI, db: AsyncSession, settings: Settings) -> Factory:
    return Factory(db, settings)


@pytest.fixture
async def committed_factory(app: FastAPI, committed_db: AsyncSession, settings: Settings) -> Factory:
    return Factory(committed_db, settings, commit=True)
