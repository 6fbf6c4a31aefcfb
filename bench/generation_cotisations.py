"""``python -m bench.generation_cotisations [--membres 100000] [--organisations 1]``: the monthly dues generation of
issue 20 for N active members on a fresh PostgreSQL database, through the real application (ASGI, the treasurer's
token from the built-in provider), as a treasurer runs it:

- ``generation``: ``POST /api/cotisations/generer`` for one month, answered inline (the threshold that turns a large
  organisation's generation into a background task is lifted, as the import bench does: the same service runs);
- ``regeneration``: the same request again (idempotent: creates nothing, skips N);
- ``tache``: the next month with the production threshold: 202, then ``GET /api/jobs/{id}`` polled until the
  in-process scheduler has finished the task (chunks committed with their progress).

Members and memberships are seeded by COPY (started memberships, all before the months generated); the database is
created and dropped by the bench. Writes bench/results/<timestamp>-generation.{json,md}."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
import httpx

from bench.config import PG_ADMIN_DSN, pg_url
from bench.fixtures import ADMIN_EMAIL, MEMBER_EMAIL, PASSWORD, ensure_users
from bench.report import ecrire

CHUNK = 20_000
MONTANT = "2500"


async def seed(url: str, membres: int, organisations: int) -> list[uuid.UUID]:
    """Organisations, then N active members spread over them, each with an active membership started in the
    previous two years; member 0 (linked by e-mail to the bench's USER account) is the first organisation's
    treasurer. Returns the organisations' ids."""
    from unionflow.models.texte import cle_recherche

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        now = datetime.now(UTC)
        orgs = [uuid.uuid4() for _ in range(organisations)]
        await conn.copy_records_to_table("organisation", columns=[
            "id", "nom", "type_organisation", "statut", "pays", "devise", "recherche", "created_at", "updated_at"],
            records=[(oid, f"Mutuelle bench {n}", "MUTUELLE", "ACTIVE", "SN", "XOF",
                      cle_recherche(f"Mutuelle bench {n}"), now, now) for n, oid in enumerate(orgs)])
        debut = date(now.year - 2, 1, 1)
        for start in range(0, membres, CHUNK):
            people, links = [], []
            for i in range(start, min(start + CHUNK, membres)):
                mid = uuid.uuid4()
                email = MEMBER_EMAIL if i == 0 else f"generation{i}@bench.unionflow.local"
                telephone = f"+22177{i:07d}"
                people.append((mid, f"G{i:08d}", f"Prénom{i}", f"Nom{i}", email, telephone, "ACTIF",
                               cle_recherche(f"Prénom{i}", f"Nom{i}", email, telephone), now, now))
                roles = ["MEMBRE", "TRESORIER"] if i == 0 else ["MEMBRE"]
                links.append((uuid.uuid4(), mid, orgs[i % organisations], json.dumps(roles), "ACTIF",
                              debut + timedelta(days=i % 700), now, now))
            await conn.copy_records_to_table("membre", records=people, columns=[
                "id", "numero_membre", "prenom", "nom", "email", "telephone", "statut", "recherche", "created_at",
                "updated_at"])
            await conn.copy_records_to_table("membre_organisation", records=links, columns=[
                "id", "membre_id", "organisation_id", "roles", "statut", "date_debut", "created_at", "updated_at"])
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    return orgs


async def _generer(client: httpx.AsyncClient, headers: dict[str, str], org: uuid.UUID, annee: int, mois: int
                   ) -> httpx.Response:
    return await client.post("/api/cotisations/generer", headers=headers, json={
        "organisationId": str(org), "typeCotisation": "MENSUELLE", "annee": annee, "mois": mois,
        "montant": MONTANT})


async def _attendre(client: httpx.AsyncClient, headers: dict[str, str], location: str) -> dict[str, Any]:
    while True:
        tache = (await client.get(location, headers=headers)).json()
        if tache["statut"] in ("TERMINEE", "ECHOUEE"):
            assert tache["statut"] == "TERMINEE", tache
            return dict(tache["resultat"])
        await asyncio.sleep(0.2)


async def _mesurer(app: Any, orgs: list[uuid.UUID], email: str, periodes: list[tuple[str, int, int]],
                   attendu: dict[str, int]) -> dict[str, Any]:
    """Each step generates its month for every organisation in turn (what one treasurer of each would do)."""
    timings: dict[str, Any] = {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=3600) as client:
        tok = (await client.post("/api/auth/token", data={
            "grant_type": "password", "username": email, "password": PASSWORD})).json()["access_token"]
        headers = {"Authorization": f"Bearer {tok}"}
        for name, annee, mois in periodes:
            started = time.perf_counter()
            creees = ignorees = 0
            taches = 0
            for org in orgs:
                response = await _generer(client, headers, org, annee, mois)
                if response.status_code == 202:
                    taches += 1
                    body = await _attendre(client, headers, response.headers["location"])
                else:
                    assert response.status_code == 200, response.text[:500]
                    body = response.json()
                creees += body["creees"]
                ignorees += body["ignorees"]
            timings[name] = round(time.perf_counter() - started, 2)
            timings[f"{name}_counts"] = {"creees": creees, "ignorees": ignorees, "taches": taches}
            assert creees == attendu[name], (name, creees, ignorees)
    return timings


async def run(membres: int, organisations: int = 1, seuil: int | None = None) -> dict[str, Any]:
    """``seuil``: the background-task threshold of the ``tache`` step (default: the production setting)."""
    from unionflow.app import create_app
    from unionflow.config import Settings
    from unionflow.migrations.alembic import upgrade

    database = f"unionflow_bench_generation_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    await admin.execute(f'CREATE DATABASE "{database}"')
    await admin.close()
    url = pg_url(database)
    today = datetime.now(UTC).date()
    suivant = date(today.year + today.month // 12, today.month % 12 + 1, 1)
    try:
        await asyncio.to_thread(upgrade, url)
        started = time.perf_counter()
        orgs = await seed(url, membres, organisations)
        seeding = round(time.perf_counter() - started, 2)
        await ensure_users(url)
        # The treasurer is member 0 (MEMBER_EMAIL); with one organisation per treasurer, several organisations
        # are generated by the bench's ADMIN instead (one account for all).
        email = MEMBER_EMAIL if organisations == 1 else ADMIN_EMAIL
        base = {"database_url": url, "argon2_time_cost": 1, "argon2_memory_cost": 1024}
        app = create_app(Settings(**base, tache_seuil_cotisations=10**9))
        async with app.router.lifespan_context(app):
            timings = await _mesurer(app, orgs, email, [
                ("generation", today.year, today.month), ("regeneration", today.year, today.month)],
                {"generation": membres, "regeneration": 0})
        # Production threshold, in-process scheduler ticking fast: the task's wait is not the bench's subject.
        production = {} if seuil is None else {"tache_seuil_cotisations": seuil}
        app = create_app(Settings(**base, **production, planificateur_integre=True, planificateur_tick_seconds=0.2))
        async with app.router.lifespan_context(app):
            timings |= await _mesurer(app, orgs, email, [("tache", suivant.year, suivant.month)],
                                      {"tache": membres})
        return {"membres": membres, "organisations": organisations, "database": "postgresql",
                "role": "TRESORIER" if organisations == 1 else "ADMIN", "seed_seconds": seeding,
                "load_average": os.getloadavg(), **timings}
    finally:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await admin.close()


def report(result: dict[str, Any], stamp: str) -> str:
    steps = {"generation": "POST /generer, inline", "regeneration": "same request again, idempotent",
             "tache": "next month, 202 + background task until TERMINEE"}
    load = ", ".join(f"{v:.2f}" for v in result["load_average"])
    md = [f"# Dues generation, {result['membres']:,} members, {result['organisations']} organisation(s) ({stamp})",
          "", f"Role {result['role']}, PostgreSQL, load average before/after the steps: {result.get('uptime', '')}"
          f" / {load}; seeding by COPY {result['seed_seconds']} s.", "", "| step | seconds | result |", "|---|---|---|"]
    for step, what in steps.items():
        md.append(f"| {step} ({what}) | {result[step]} | {result[f'{step}_counts']} |")
    return "\n".join(md) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.generation_cotisations", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--membres", type=int, default=100_000)
    parser.add_argument("--organisations", type=int, default=1)
    args = parser.parse_args()
    uptime = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    result = asyncio.run(run(args.membres, args.organisations)) | {"uptime": uptime}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = report(result, stamp)
    ecrire(result, "generation", md, stamp)
    print(md)


if __name__ == "__main__":
    main()
