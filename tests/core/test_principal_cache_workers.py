"""Principal cache across processes: a real ``unionflow serve --workers 2`` on a scratch PostgreSQL database. Both
workers serve a treasurer from their cache (a change behind the ORM's back is not seen), then the treasurer's role
is removed through the API: requests landing on either worker are refused long before the TTL (60 s here) could
expire — the NOTIFY sent by the writing transaction did it. Also: the listener reconnects after its connection is
killed, emptying the cache."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.cli.test_serve import _free_port, serve
from tests.conftest import PG_ADMIN_URL, _pg_dsn, scratch_pg_database
from tests.factories import Factory
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker
from unionflow.core.principal_cache import PrincipalCache, PrincipalListener

pytestmark = pytest.mark.postgresql_only
TTL_SECONDS = 60
# Well under the TTL: only the notification can explain a refusal within it.
DEADLINE_SECONDS = 10


@pytest.fixture
def scratch_url() -> Iterator[str]:
    with scratch_pg_database("unionflow_workers") as url:
        yield url


def _pid_of(response: httpx.Response, log: Path) -> str | None:
    request_id = response.headers.get("x-request-id")
    for line in log.read_text().splitlines():
        if line.startswith("{") and request_id and request_id in line:
            record = json.loads(line)
            if record.get("requestId") == request_id and record.get("logger") == "unionflow.requests":
                return str(record["pid"])
    return None


def _hit(base: str, path: str, headers: dict[str, str], log: Path) -> tuple[int, str | None]:
    # A new connection each time, so the kernel spreads the requests over both workers.
    response = httpx.get(f"{base}{path}", headers={**headers, "Connection": "close"}, timeout=10)
    for _ in range(50):  # the access line is written just after the response
        pid = _pid_of(response, log)
        if pid is not None:
            return response.status_code, pid
        time.sleep(0.02)
    return response.status_code, None


def _until_both_workers(base: str, path: str, headers: dict[str, str], log: Path, expected: int,
                        deadline: float) -> set[str]:
    """Requests until each of the two workers answered ``expected``; every answer must be ``expected``."""
    pids: set[str] = set()
    while len(pids) < 2:
        assert time.monotonic() < deadline, f"only workers {pids} answered {expected} in time"
        status, pid = _hit(base, path, headers, log)
        assert status == expected, (status, pid)
        if pid is not None:
            pids.add(pid)
    return pids


async def _setup(url: str, base: str) -> tuple[dict[str, str], dict[str, str], str]:
    settings = Settings(database_url=url, public_base_url=base, argon2_time_cost=1, argon2_memory_cost=1024)
    engine = create_engine(settings)
    try:
        async with create_sessionmaker(engine)() as session:
            factory = Factory(session, settings, commit=True)
            org = await factory.organisation()
            admin = await factory.actor(["ADMIN"], with_membre=False)
            tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
            assert tresorier.membre is not None
            path = f"/api/membres/{tresorier.membre.id}/organisations/{org.id}"
            return admin.headers, tresorier.headers, path
    finally:
        await engine.dispose()


async def _behind_the_orm(url: str, sql: str) -> None:
    connection = await asyncpg.connect(_pg_dsn(url))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def test_a_removed_role_is_refused_on_both_workers_before_the_ttl(tmp_path, scratch_url):
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {"UNIONFLOW_DATABASE_URL": scratch_url, "UNIONFLOW_PUBLIC_BASE_URL": base,
           "UNIONFLOW_PRINCIPAL_CACHE_SECONDS": str(TTL_SECONDS)}
    with serve(tmp_path, port, "--workers", "2", **env) as (_, log):
        admin, tresorier, membership = asyncio.run(_setup(scratch_url, base))
        start = time.monotonic()
        _until_both_workers(base, "/api/versements", tresorier, log, 200, start + 60)
        # Both caches hold the treasurer: a membership ended behind the ORM's back (no NOTIFY) is not seen.
        asyncio.run(_behind_the_orm(scratch_url, "UPDATE membre_organisation SET statut = 'TERMINE'"))
        _until_both_workers(base, "/api/versements", tresorier, log, 200, start + 60)
        asyncio.run(_behind_the_orm(scratch_url, "UPDATE membre_organisation SET statut = 'ACTIF'"))

        removed = httpx.put(f"{base}{membership}", json={"roles": ["MEMBRE"]}, headers=admin, timeout=10)
        assert removed.status_code == 200, removed.text
        removed_at = time.monotonic()
        # The other worker reads the notification a moment after the commit: a short grace, then only refusals.
        while time.monotonic() < removed_at + 1:
            status, _ = _hit(base, "/api/versements", tresorier, log)
            if status == 403:
                break
        _until_both_workers(base, "/api/versements", tresorier, log, 403, removed_at + DEADLINE_SECONDS)
        assert time.monotonic() - removed_at < TTL_SECONDS / 2


async def test_the_listener_reconnects_and_empties_the_cache(settings):
    cache = PrincipalCache(TTL_SECONDS, needs_listener=True)
    listener = PrincipalListener(cache, settings.database_url, 5)
    stop = asyncio.Event()
    task = asyncio.create_task(listener.run(stop))
    try:
        await asyncio.wait_for(listener.connected.wait(), 30)
        cache.put("key", "value", cache.generation)
        assert len(cache) == 1 and cache.usable
        first = listener.server_pid
        admin = await asyncpg.connect(_pg_dsn(PG_ADMIN_URL))
        try:
            await admin.execute("SELECT pg_terminate_backend($1)", first)
        finally:
            await admin.close()
        deadline = time.monotonic() + 30
        while listener.server_pid in (first, None) or not cache.usable:
            assert time.monotonic() < deadline, "the listener did not reconnect"
            await asyncio.sleep(0.05)
        assert len(cache) == 0
        assert not task.done()
    finally:
        stop.set()
        await task
    assert not cache.usable
