"""``python -m bench.import_membres [--lines 100000]``: a member import of N generated lines on a fresh PostgreSQL
database, through the real application (ASGI, token from the built-in provider): dry run, import, re-import.
Writes bench/results/<timestamp>-import.{json,md}."""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from datetime import UTC, datetime

import asyncpg
import httpx

from bench.config import PG_ADMIN_DSN, pg_url
from bench.fixtures import ADMIN_EMAIL, PASSWORD, ensure_users
from bench.report import ecrire


def generate(lines: int) -> bytes:
    rows = ["Prénom;Nom;Email;Téléphone;Genre;Date de naissance;Ville"]
    for i in range(lines):
        rows.append(f"Prénom{i};Nom{i};import{i}@bench-import.example.sn;+22176{i:07d};{'F' if i % 2 else 'M'};"
                    f"{1 + i % 28:02d}/{1 + i % 12:02d}/{1960 + i % 45};{('Dakar', 'Thiès', 'Kaolack')[i % 3]}")
    return ("\ufeff" + "\r\n".join(rows)).encode()


async def run(lines: int) -> dict[str, object]:
    from unionflow.app import create_app
    from unionflow.config import Settings
    from unionflow.migrations.alembic import upgrade
    from unionflow.models import Organisation

    database = f"unionflow_bench_import_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    await admin.execute(f'CREATE DATABASE "{database}"')
    await admin.close()
    url = pg_url(database)
    try:
        await asyncio.to_thread(upgrade, url)
        await ensure_users(url)
        # The synchronous path is measured: above the threshold the same service runs in a background task.
        app = create_app(Settings(database_url=url, argon2_time_cost=1, argon2_memory_cost=1024,
                                  tache_seuil_import_lignes=10**9))
        async with app.router.lifespan_context(app):
            async with app.state.sessionmaker() as session:
                org = Organisation(nom="Fédération bench import", type_organisation="FEDERATION", pays="SN")
                session.add(org)
                await session.commit()
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=3600) as client:
                tok = (await client.post("/api/auth/token", data={
                    "grant_type": "password", "username": ADMIN_EMAIL, "password": PASSWORD})).json()["access_token"]
                headers = {"Authorization": f"Bearer {tok}"}
                content = generate(lines)
                timings: dict[str, float] = {}
                for name, simulation in (("dry_run", True), ("import", False), ("reimport", False)):
                    started = time.perf_counter()
                    response = await client.post("/api/membres/import", headers=headers, files={
                        "fichier": ("membres.csv", content, "text/csv")}, data={
                        "organisationId": str(org.id), "simulation": str(simulation).lower()})
                    timings[name] = round(time.perf_counter() - started, 2)
                    body = response.json()
                    assert response.status_code == 200, response.text[:500]
                    assert body["refuses"] == 0, [line for line in body["lignes"] if line["motifs"]][:3]
                    timings[f"{name}_counts"] = {k: body[k] for k in ("crees", "misAJour", "inchanges", "refuses")}
        return {"lines": lines, "bytes": len(content), "database": "postgresql", **timings}
    finally:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.import_membres", description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    # The machine is shared: the load around the run says how far its figures can be compared.
    before = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    result = asyncio.run(run(args.lines))
    result["load_average"] = {"before": before, "after": ", ".join(f"{v:.2f}" for v in os.getloadavg())}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = [f"# Member import, {result['lines']:,} lines ({stamp})", "", "| step | seconds | result |",
          "|---|---|---|"]
    for step in ("dry_run", "import", "reimport"):
        md.append(f"| {step} | {result[step]} | {result[f'{step}_counts']} |")
    md += ["", f"Load average (1, 5, 15 min) before / after: {result['load_average']['before']} / "
               f"{result['load_average']['after']}."]
    ecrire(result, "import", "\n".join(md) + "\n", stamp)
    print("\n".join(md))


if __name__ == "__main__":
    main()
