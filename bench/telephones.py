"""Members reached by phone, for the USSD and SMS benches (bench/ussd.py, bench/sms.py): a fresh PostgreSQL
database of the bench's own, N active members of one organisation with an E.164 number and no e-mail (so their
reminders go by SMS), an active membership each, a USSD PIN when asked (the keyed digest
the PIN routes store), then the previous month's dues generated and some of them partly paid through the
real application (ASGI, the bench's ADMIN token): receipts with their verification keys, as members have them."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
import httpx

from bench.config import PG_ADMIN_DSN, pg_url
from bench.fixtures import ADMIN_EMAIL, PASSWORD, ensure_users

CHUNK = 20_000
MONTANT = "2500"
ACOMPTE = "1000"  # paid on some dues: a receipt, and still something to pay on the USSD menu


def telephone(i: int) -> str:
    return f"+22178{i:07d}"


@contextmanager
def sans_lignes_de_requete() -> Iterator[None]:
    """One log line per preparation request otherwise. The levels are put back after: the benches also run inside
    the test suite's processes (tests/test_bench_ussd.py), where a later test reads the request lines
    (tests/monitoring/test_logs.py failed whenever it ran after the bench in the same worker)."""
    bruyants = [logging.getLogger(nom) for nom in ("unionflow.requests", "httpx")]
    avant = [logger.level for logger in bruyants]
    for logger in bruyants:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, niveau in zip(bruyants, avant, strict=True):
            logger.setLevel(niveau)


@dataclass(frozen=True)
class Recu:
    numero: str
    cle: str


@asynccontextmanager
async def base_neuve(nom: str) -> AsyncIterator[str]:
    """A migrated database ``unionflow_bench_<nom>_<random>``, dropped on the way out; yields its URL."""
    from unionflow.migrations.alembic import upgrade

    database = f"unionflow_bench_{nom}_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    await admin.execute(f'CREATE DATABASE "{database}"')
    await admin.close()
    url = pg_url(database)
    try:
        await asyncio.to_thread(upgrade, url)
        await ensure_users(url)
        yield url
    finally:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await admin.close()


def pin_hash(membre_id: uuid.UUID, pin: str) -> str:
    """The PIN as ``PinUssdService.definir`` stores it: a keyed digest under the bench server's key."""
    from bench.procs import CLE_PIN_USSD
    from unionflow.config import Settings
    from unionflow.ussd.empreinte import empreinte

    return empreinte(Settings(ussd_pin_cle=CLE_PIN_USSD), "pin", membre_id, pin)


async def semer(url: str, membres: int, pin: str | None) -> uuid.UUID:
    """One organisation and its N members (COPY); returns the organisation's id."""
    from unionflow.models.texte import cle_recherche

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        now = datetime.now(UTC)
        org = uuid.uuid4()
        await conn.copy_records_to_table("organisation", columns=[
            "id", "nom", "type_organisation", "statut", "pays", "devise", "recherche", "created_at", "updated_at"],
            records=[(org, "Mutuelle de Joal", "MUTUELLE", "ACTIVE", "SN", "XOF", cle_recherche("Mutuelle de Joal"),
                      now, now)])
        debut = date(now.year - 2, 1, 1)
        for start in range(0, membres, CHUNK):
            people, links, pins = [], [], []
            for i in range(start, min(start + CHUNK, membres)):
                mid = uuid.uuid4()
                people.append((mid, f"T{i:08d}", f"Awa{i}", f"Diop{i}", None, telephone(i), "ACTIF",
                               cle_recherche(f"Awa{i}", f"Diop{i}", telephone(i)), now, now))
                links.append((uuid.uuid4(), mid, org, json.dumps(["MEMBRE"]), "ACTIF",
                              debut + timedelta(days=i % 700), now, now))
                if pin is not None:
                    pins.append((uuid.uuid4(), mid, pin_hash(mid, pin), 0, False, now, now))
            await conn.copy_records_to_table("membre", records=people, columns=[
                "id", "numero_membre", "prenom", "nom", "email", "telephone", "statut", "recherche", "created_at",
                "updated_at"])
            await conn.copy_records_to_table("membre_organisation", records=links, columns=[
                "id", "membre_id", "organisation_id", "roles", "statut", "date_debut", "created_at", "updated_at"])
            if pins:
                await conn.copy_records_to_table("pin_ussd", records=pins, columns=[
                    "id", "membre_id", "pin_hash", "echecs", "verrouille", "created_at", "updated_at"])
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return org


async def analyser(url: str) -> None:
    """Statistics of what the preparation wrote through the API (dues, payments, receipts), as a running database
    has them: without it the planner worked from none until autovacuum's ANALYZE came by, sometimes in the middle
    of a run (the USSD bench's throughput was 200 or 290 answers a second from one run to the next)."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


def mois_precedent(today: date) -> tuple[int, int]:
    return (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)


@asynccontextmanager
async def client_admin(url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The real application in process (ASGI), with the bench ADMIN's token on every request."""
    from unionflow.app import create_app
    from unionflow.config import Settings

    app = create_app(Settings(database_url=url, tache_seuil_cotisations=10**9))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=600) as client:
            tok = (await client.post("/api/auth/token", data={
                "grant_type": "password", "username": ADMIN_EMAIL, "password": PASSWORD})).json()["access_token"]
            client.headers["Authorization"] = f"Bearer {tok}"
            yield client


async def cotisations(client: httpx.AsyncClient, org: uuid.UUID, membres: int) -> None:
    """Last month's dues of every member (overdue by now), generated as a treasurer does."""
    annee, mois = mois_precedent(datetime.now(UTC).date())
    response = await client.post("/api/cotisations/generer", json={
        "organisationId": str(org), "typeCotisation": "MENSUELLE", "annee": annee, "mois": mois, "montant": MONTANT})
    assert response.status_code == 200, response.text[:500]
    assert response.json()["creees"] == membres, response.text[:500]


async def acomptes(client: httpx.AsyncClient, url: str, payeurs: int) -> list[Recu]:
    """``payeurs`` members pay part of their dues at the desk (the payment API): their receipts."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        dues = [r[0] for r in await conn.fetch(
            "SELECT c.id FROM cotisation c JOIN membre m ON m.id = c.membre_id ORDER BY m.numero_membre LIMIT $1",
            payeurs)]
        for cid in dues:
            response = await client.put(f"/api/cotisations/{cid}/payer", json={"montant": ACOMPTE},
                                        headers={"Idempotency-Key": f"bench-{cid}"})
            assert response.status_code == 200, response.text[:500]
        rows = await conn.fetch("SELECT numero_recu, cle_verification FROM paiement WHERE numero_recu IS NOT NULL "
                                "ORDER BY numero_recu")
    finally:
        await conn.close()
    return [Recu(r[0], r[1]) for r in rows]


async def backends(url: str) -> list[int]:
    """PostgreSQL server processes serving the bench's database now (their CPU is the database's share)."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        rows = await conn.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                "AND pid <> pg_backend_pid()")
    finally:
        await conn.close()
    return [r["pid"] for r in rows]


def charge() -> dict[str, Any]:
    """The machine's load average now (1, 5, 15 min) and the time: the machine is shared."""
    import os

    un, cinq, quinze = os.getloadavg()
    return {"le": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "charge": [round(un, 2), round(cinq, 2),
                                                                              round(quinze, 2)]}
