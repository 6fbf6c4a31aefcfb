"""``python -m bench.profil_etats [--profil grand-livre.pdf] [--sortie DIR] [--memoire]``: the six documents of issue
32 (balance, grand livre, journal of the bench's largest organisation for its year, in PDF and XLSX), timed in process
through the application (ASGI transport, no server, no network) on the bench database, each with the process's peak
RSS growth.

``--memoire`` adds each document's peak of Python allocations (tracemalloc); ``--profil ETAT.FMT`` runs that document
once more under cProfile and prints the top functions by cumulative and own time; ``--sortie DIR`` keeps the documents
and the JSON of each statement (to compare the output before and after a change)."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from bench.config import pg_url
from bench.fixtures import ADMIN_EMAIL, PASSWORD, ensure_users

ETATS = ("balance", "grand-livre", "journal")
PAGE = os.sysconf("SC_PAGE_SIZE")


async def _cible(url: str) -> tuple[str, int, int]:
    """The organisation with the most entries in the year with the most entries: (id, year, entries)."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        annee = await conn.fetchval(
            "SELECT annee FROM ecriture_comptable GROUP BY annee ORDER BY count(*) DESC LIMIT 1")
        org, n = await conn.fetchrow("SELECT organisation_id, count(*) FROM ecriture_comptable WHERE annee = $1 "
                                     "GROUP BY 1 ORDER BY 2 DESC LIMIT 1", annee)
    finally:
        await conn.close()
    return str(org), int(annee), int(n)


class PicRss:
    """The process's peak resident memory above what it held when entered, sampled every 5 ms by a thread (the
    event loop's work holds the GIL but yields it every switch interval)."""

    def __enter__(self) -> PicRss:
        self.base = self.pic = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.pic = max(self.pic, _rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.pic = max(self.pic, _rss_mb())


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


async def run(database: str, repetitions: int, profil: str | None, sortie: Path | None, memoire: bool = False
              ) -> dict[str, Any]:
    from unionflow.app import create_app
    from unionflow.config import Settings

    url = pg_url(database)
    org, annee, n = await _cible(url)
    await ensure_users(url)
    app = create_app(Settings(database_url=url, argon2_time_cost=1, argon2_memory_cost=1024))
    out: dict[str, Any] = {"organisation": org, "annee": annee, "ecritures": n, "documents": {}}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://profil", timeout=600) as client:
            tok = (await client.post("/api/auth/token", data={
                "grant_type": "password", "username": ADMIN_EMAIL, "password": PASSWORD})).json()["access_token"]
            client.headers["Authorization"] = f"Bearer {tok}"
            periode = {"organisationId": org, "dateDebut": f"{annee}-01-01", "dateFin": f"{annee}-12-31"}

            async def get(etat: str, fmt: str) -> httpx.Response:
                r = await client.get(f"/api/comptabilite/etats/{etat}", params={**periode, "format": fmt})
                assert r.status_code == 200, (etat, fmt, r.status_code, r.text[:500])
                return r

            for etat in ETATS:
                for fmt in ("json", "pdf", "xlsx"):
                    temps, pics = [], []
                    for _ in range(repetitions):
                        with PicRss() as rss:
                            started = time.perf_counter()
                            r = await get(etat, fmt)
                            temps.append(time.perf_counter() - started)
                        pics.append(rss.pic - rss.base)
                    out["documents"][f"{etat}.{fmt}"] = {
                        "secondes": round(min(temps), 3), "octets": len(r.content),
                        "pic_rss_supplementaire_mb": round(max(pics), 1)}
                    if sortie is not None:
                        (sortie / f"{etat}.{fmt}").write_bytes(r.content)
            if memoire:
                # Python allocations at their peak while each document is built (tracemalloc: what the statement,
                # its table and the document hold at once, without the allocator's slack that RSS also shows).
                for etat in ETATS:
                    for fmt in ("json", "pdf", "xlsx"):
                        tracemalloc.start()
                        await get(etat, fmt)
                        _, pic = tracemalloc.get_traced_memory()
                        tracemalloc.stop()
                        out["documents"][f"{etat}.{fmt}"]["pic_tracemalloc_mb"] = round(pic / 2**20, 1)
            if profil is not None:
                etat, fmt = profil.rsplit(".", 1)
                profiler = cProfile.Profile()
                profiler.enable()
                await get(etat, fmt)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)
                pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", default="unionflow_bench")
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--profil", help="ETAT.FMT to profile, e.g. grand-livre.pdf")
    parser.add_argument("--sortie", type=Path, help="keep the documents in this folder")
    parser.add_argument("--memoire", action="store_true", help="also each document's peak of Python allocations")
    args = parser.parse_args()
    if args.sortie is not None:
        args.sortie.mkdir(parents=True, exist_ok=True)
    print(json.dumps(asyncio.run(run(args.database, args.repetitions, args.profil, args.sortie,
                                                   args.memoire)), indent=2))


if __name__ == "__main__":
    main()
