"""A restore run while payments are being written loses nothing that was acknowledged and never reissues a
receipt number (issue 13, item 5). Runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from tests.backups.conftest import Throwaway
from tests.conftest import BACKEND, PG_ADMIN_URL, _pg_dsn
from tests.factories.cotisations import cotisation
from unionflow.models import AuditLog, Paiement, Sauvegarde

WRITERS = 4


async def _rows_in_restore_point(t: Throwaway, fichier: str) -> tuple[set[str], set[str]]:
    """Payment ids and ids of audited entities inside the restore point's file (not the live database)."""
    path = Path(t.settings.data_dir) / "backups" / fichier
    if BACKEND != "postgresql":
        with closing(sqlite3.connect(path)) as conn:
            payments = {str(uuid.UUID(r[0])) for r in conn.execute("SELECT id FROM paiement")}
            audited = {str(uuid.UUID(r[0])) for r in conn.execute(
                "SELECT entite_id FROM audit_log WHERE entite_type = 'Paiement'")}
        return payments, audited
    scratch = f"unionflow_point_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(_pg_dsn(PG_ADMIN_URL))
    try:
        await admin.execute(f'CREATE DATABASE "{scratch}"')
        dsn = _pg_dsn(make_url(PG_ADMIN_URL).set(database=scratch).render_as_string(hide_password=False))
        process = await asyncio.create_subprocess_exec(
            shutil.which("pg_restore") or "pg_restore", "--no-owner", "--dbname", dsn, str(path),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        _, stderr = await process.communicate()
        assert process.returncode == 0, stderr.decode()
        conn = await asyncpg.connect(dsn)
        try:
            payments = {str(r[0]) for r in await conn.fetch("SELECT id FROM paiement")}
            audited = {str(r[0]) for r in await conn.fetch(
                "SELECT entite_id FROM audit_log WHERE entite_type = 'Paiement'")}
        finally:
            await conn.close()
        return payments, audited
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        await admin.close()


@pytest.mark.skipif(BACKEND == "postgresql" and not shutil.which("pg_restore"), reason="pg_restore not installed")
async def test_restore_under_concurrent_payments_loses_nothing_and_reissues_no_receipt(throwaway: Throwaway):
    t = throwaway
    admin = await t.admin()
    org = await t.factory.organisation()
    treasurer = await t.factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await t.factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    membre = member.membre
    assert membre is not None
    dues = await cotisation(t.factory.session, membre, org, 10_000_000, commit=True)
    dues_id = str(dues.id)
    await t.factory.session.rollback()

    # Payments that already issued numbers, then the backup to go back to.
    async def pay() -> Any:
        return await t.client.post("/api/paiements", headers=treasurer.headers, json={
            "membreId": str(membre.id), "organisationId": str(org.id), "montant": "100",
            "methode": "ESPECES", "cibles": [{"cotisationId": dues_id}]})

    for _ in range(3):
        assert (await pay()).status_code == 201
    backup = (await t.client.post("/api/backups", headers=admin.headers, json={"nom": "Base"})).json()
    assert backup["statut"] == "TERMINEE", backup

    acknowledged: list[dict[str, Any]] = []
    refused: list[Any] = []
    restore_done = asyncio.Event()
    flowing = asyncio.Event()  # restore while writes are flowing
    after_restore = 0
    loop = asyncio.get_running_loop()
    spans: list[tuple[float, float, int]] = []  # (start, end, status) of every write
    window: list[float] = []  # start and end of the restore request

    async def writer() -> None:
        nonlocal after_restore
        while after_restore < 3 * WRITERS:
            start = loop.time()
            response = await pay()
            spans.append((start, loop.time(), response.status_code))
            if response.status_code == 201:
                acknowledged.append(response.json())
                if len(acknowledged) >= 2 * WRITERS:
                    flowing.set()
                if restore_done.is_set():
                    after_restore += 1
            else:
                refused.append(response)
                await asyncio.sleep(0.01)

    async def restorer() -> Any:
        await flowing.wait()
        window.append(loop.time())
        try:
            return await t.client.post("/api/backups/restore", headers=admin.headers,
                                       json={"backupId": backup["id"], "confirmation": "RESTAURER"})
        finally:
            window.append(loop.time())
            restore_done.set()

    results = await asyncio.wait_for(asyncio.gather(restorer(), *(writer() for _ in range(WRITERS))), 300)
    restored = results[0]
    assert restored.status_code == 200 and restored.json()["statut"] == "TERMINEE", restored.text

    # Every acknowledged payment is in the live database or in the restore point, with its audit entry.
    async with t.app.state.sessionmaker() as session:
        point = await session.get(Sauvegarde, uuid.UUID(restored.json()["pointRestauration"]["id"]))
        assert point is not None
        point_payments, point_audited = await _rows_in_restore_point(t, point.fichier)
        live = {str(i) for i in (await session.execute(select(Paiement.id))).scalars()}
        live_audited = {str(i) for i in (await session.execute(
            select(AuditLog.entite_id).where(AuditLog.entite_type == "Paiement"))).scalars()}
    for payment in acknowledged:
        assert payment["id"] in live or payment["id"] in point_payments, payment
        if payment["id"] in point_payments:
            assert payment["id"] in point_audited, payment
        else:
            assert payment["id"] in live_audited, payment

    # Refusals were honest maintenance answers, never a 500 or a lost connection.
    for response in refused:
        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert int(response.headers["retry-after"]) > 0
    # Writes were in flight while the restore ran: refused (503 above) or held until the window closed and then
    # acknowledged (kept above). Which of the two depends on lock scheduling: on SQLite a writer queued on the
    # single write lock before the flag went up may only get it after the window (asserting a refusal failed
    # about once in ten runs); the gate's refusal itself is tested deterministically in tests/core/test_maintenance.py.
    debut, fin = window
    assert any(start < fin and end > debut for start, end, _ in spans), "no write in flight during the restore"

    # No receipt number was handed out twice, across the restore.
    numbers = [p["numeroRecu"] for p in acknowledged]
    assert len(numbers) == len(set(numbers)), sorted(n for n in numbers if numbers.count(n) > 1)
    # And the live database agrees with what clients were given.
    async with t.app.state.sessionmaker() as session:
        stored = list((await session.execute(select(Paiement.numero_recu))).scalars())
    assert len(stored) == len(set(stored))

