"""The maintenance gate seen by other workers: writes answer 503 + Retry-After, reads go on (issue 13, item 5)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text, update

from tests.conftest import BACKEND
from unionflow.core import maintenance
from unionflow.models import Maintenance
from unionflow.models.base import utcnow


async def _hold_gate(app, db):
    """What a restore in another process does: PostgreSQL, the exclusive advisory lock held on its own
    connection; SQLite, the flag row (visible to the requests, which run in savepoints of ``db``).
    Returns the release."""
    if BACKEND == "postgresql":
        conn = await app.state.engine.connect()
        await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": maintenance.WRITE_GATE_KEY})
        return conn.close
    flag = update(Maintenance).where(Maintenance.id == 1)
    await db.execute(flag.values(actif=True, motif="restauration de « test »", debut=utcnow(),
                                 expire_le=utcnow() + timedelta(hours=1)))

    async def release() -> None:
        await db.execute(flag.values(actif=False, motif=None, debut=None, expire_le=None))

    return release


async def test_writes_are_refused_with_retry_after_while_reads_go_on(app, client, factory, db):
    admin = await factory.actor(["ADMIN", "SUPER_ADMIN"], with_membre=False)
    release = await _hold_gate(app, db)
    try:
        write = await client.post("/api/organisations", headers=admin.headers,
                                  json={"nom": "Pendant la maintenance", "typeOrganisation": "ASSOCIATION"})
        read = await client.get("/api/organisations", headers=admin.headers)
    finally:
        await release()
    assert write.status_code == 503, write.text
    assert write.headers["content-type"].startswith("application/problem+json")
    assert write.headers["retry-after"] == str(maintenance.RETRY_AFTER_SECONDS)
    assert write.json()["type"].endswith("/maintenance")
    assert read.status_code == 200
    after = await client.post("/api/organisations", headers=admin.headers,
                              json={"nom": "Après la maintenance", "typeOrganisation": "ASSOCIATION"})
    assert after.status_code == 201, after.text


async def test_a_flag_left_by_a_dead_process_expires(client, factory, db):
    admin = await factory.actor(["ADMIN", "SUPER_ADMIN"], with_membre=False)
    await db.execute(update(Maintenance).where(Maintenance.id == 1).values(
        actif=True, motif="restauration interrompue", debut=utcnow() - timedelta(hours=4),
        expire_le=utcnow() - timedelta(hours=1)))
    response = await client.post("/api/organisations", headers=admin.headers,
                                 json={"nom": "Après expiration", "typeOrganisation": "ASSOCIATION"})
    assert response.status_code == 201, response.text
