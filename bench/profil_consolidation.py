"""Times each figure of the federation consolidation and of the consolidated statements in process, on the bench's
PostgreSQL data (``python -m bench.profil_consolidation --scale national``): which figure the time goes to, as
docs/performance.md « National consolidation, second step » reports. The data must exist (``make bench-echelle``
builds it)."""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from bench.config import SCALES, pg_database, pg_url
from unionflow.comptabilite.etats.encaisse import encaisse_organisations
from unionflow.comptabilite.etats.repository import EtatsRepository
from unionflow.compte.repository import CompteRepository
from unionflow.cotisations.synthese_repository import chiffres_organisations


async def _mesurer(url: str, runs: int) -> None:
    engine = create_async_engine(url)
    try:
        async with async_sessionmaker(engine)() as s:
            ids = list((await s.execute(text("SELECT id FROM organisation"))).scalars())
            annee = int((await s.execute(text(
                "SELECT max(extract(year FROM date_ecriture))::int FROM ecriture_comptable"))).scalar_one())
            debut, fin = date(annee, 1, 1), date(annee, 12, 31)
            today = min(fin, datetime.now(UTC).date())
            etats, compte = EtatsRepository(s), CompteRepository(s)
            for run in range(1, runs + 1):
                steps: list[tuple[str, Awaitable[Any]]] = [
                    ("dues sums (summary)", chiffres_organisations(s, ids, today.year, today)),
                    ("dues figures (summary + distinct members)", compte.organisations_dues(ids, today.year, today)),
                    ("treasuries (class 5)", etats.soldes_organisations(ids, None, fin, classe=5)),
                    ("encaissé", encaisse_organisations(s, ids, debut, fin)),
                    ("active members", compte.active_members_par_organisation(ids)),
                    ("statements' balances (one pass)", etats.soldes_consolides(ids, debut, fin)),
                ]
                results = {}
                for label, step in steps:
                    t0 = time.perf_counter()
                    results[label] = await step
                    print(f"run {run}: {label}: {time.perf_counter() - t0:.2f} s", flush=True)
                await _membres_en_retard_avant(s, ids, today, results["dues figures (summary + distinct members)"],
                                               run)
    finally:
        await engine.dispose()


async def _membres_en_retard_avant(s: Any, ids: list[Any], today: date, figures: dict[Any, Any], run: int) -> None:
    """The distinct members in arrears as counted before migration 0046 (over the overdue dues), timed, and checked
    equal to the per-member summary's count for every organisation."""
    t0 = time.perf_counter()
    rows = await s.execute(text(
        "SELECT organisation_id, count(DISTINCT membre_id) FROM cotisation WHERE statut IN ('EN_ATTENTE', "
        "'PARTIELLEMENT_PAYEE', 'EN_RETARD') AND date_echeance < :today GROUP BY organisation_id"), {"today": today})
    avant = {org: int(n) for org, n in rows.all()}
    print(f"run {run}: distinct members over the overdue dues (before 0046): {time.perf_counter() - t0:.2f} s",
          flush=True)
    differents = [org for org in ids if avant.get(org, 0) != figures[org]["membres_en_retard"]]
    print(f"run {run}: members in arrears, summary = dues for {len(ids) - len(differents)} of {len(ids)} "
          f"organisations ({sum(avant.values()):,} members)", flush=True)
    if differents:
        raise SystemExit(f"the per-member summary differs from the dues for {len(differents)} organisations")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profil_consolidation", description=__doc__)
    parser.add_argument("--scale", choices=sorted(SCALES), default="national")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    url = pg_url(pg_database(SCALES[args.scale])).replace("postgresql://", "postgresql+asyncpg://")
    asyncio.run(_mesurer(url, args.runs))


if __name__ == "__main__":
    main()
