"""``python -m bench.echelle [--scale default|national] [--repetitions 3]``: the work that grows with the union
(issue 32 item 1), each timed from the client against ``unionflow serve --workers 2`` on the bench's PostgreSQL data
(bench/datagen.py, with its books: bench/livres.py), as a treasurer or a federation officer runs it:

- ``cloture``: the monthly closing of the largest organisation (the books' balances read, ``POST
  /api/comptabilite/clotures-mensuelles`` with them, all checks run) and its closing pack (``GET …/dossier``, PDF);
  each repetition closes the next month not yet closed (closings are permanent: a rerun takes later months);
- ``consolidation``: ``GET /api/federations/{union}/consolidation`` and ``…/etats-consolides`` over every
  organisation for the data's year;
- ``etats``: balance, grand livre and journal of the largest organisation for the year, in PDF and XLSX.

Each step is timed, with the peak resident memory of the server's workers sampled every 20 ms while it runs (the
« constant memory » of streamed statements shows as a peak that does not follow the document's size). Goals (issue
32): closing ≤ 3 s, consolidation ≤ 2 s, each statement ≤ 10 s. Writes bench/results/<stamp>-echelle.{json,md}.
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import os
import statistics
import threading
import time
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx

from bench.config import SCALES, pg_database, pg_url
from bench.datagen import ensure_pg
from bench.fixtures import ADMIN_EMAIL, ensure_users, token
from bench.procs import Server, rss_kb, start_service
from bench.report import ecrire

GOALS = {"cloture": 3.0, "dossier": 3.0, "consolidation": 2.0, "etats_consolides": 2.0, "etat": 10.0}


class PicMemoire:
    """The workers' summed RSS, sampled in a thread while a step runs: its peak above the level before."""

    def __init__(self, server: Server) -> None:
        self.pids = server.workers()
        self.base = self._rss()
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _rss(self) -> int:
        return sum(rss_kb(pid) or 0 for pid in self.pids)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self._rss())

    def __enter__(self) -> PicMemoire:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def _cibles(url: str) -> dict[str, Any]:
    """The largest organisations by number of entries, the union (root of the federation tree) and the data's year."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        annee = await conn.fetchval(
            "SELECT annee FROM ecriture_comptable GROUP BY annee ORDER BY count(*) DESC LIMIT 1")
        entries = {str(r["organisation_id"]): r["n"] for r in await conn.fetch(
            "SELECT organisation_id, count(*) AS n FROM ecriture_comptable WHERE annee = $1 GROUP BY 1 "
            "ORDER BY 2 DESC", annee)}
        orgs = list(entries)[:20]
        union = await conn.fetchval("SELECT id FROM organisation WHERE parent_id IS NULL AND type_organisation = "
                                    "'UNION' LIMIT 1")
    finally:
        await conn.close()
    return {"organisations": orgs, "union": str(union), "annee": int(annee), "entries": entries}


async def _timed(server: Server, client: httpx.AsyncClient, method: str, path: str, **kw: Any) -> dict[str, Any]:
    with PicMemoire(server) as mem:
        started = time.perf_counter()
        response = await client.request(method, path, **kw)
        seconds = time.perf_counter() - started
    if response.status_code >= 300:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:800]}")
    return {"seconds": round(seconds, 3), "status": response.status_code, "bytes": len(response.content),
            "rss_base_mb": round(mem.base / 1024, 1), "rss_peak_extra_mb": round((mem.peak - mem.base) / 1024, 1),
            "body": response}


async def _mois_a_clore(client: httpx.AsyncClient, orgs: list[str], annee: int) -> tuple[str, int]:
    for org in orgs:
        faites = {(c["annee"], c["mois"]) for c in (await client.get(
            "/api/comptabilite/clotures-mensuelles", params={"organisationId": org})).json()}
        for mois in range(1, 13):
            if (annee, mois) not in faites:
                return org, mois
    raise RuntimeError("every month of the largest organisations is closed: rebuild the bench data (--rebuild)")


async def _cloture(server: Server, client: httpx.AsyncClient, orgs: list[str], annee: int) -> dict[str, Any]:
    org, mois = await _mois_a_clore(client, orgs, annee)
    fin = f"{annee}-{mois:02d}-{calendar.monthrange(annee, mois)[1]:02d}"
    started = time.perf_counter()
    balance = (await client.get("/api/comptabilite/etats/balance",
                                params={"organisationId": org, "dateFin": fin})).json()
    solde = {ligne["numeroCompte"]: float(ligne["soldeDebiteur"]) - float(ligne["soldeCrediteur"])
             for ligne in balance["lignes"]}
    body = {"organisationId": org, "annee": annee, "mois": mois, "caisseComptee": str(solde.get("571", 0)),
            "soldeBanque": str(solde.get("521", 0)), "soldeWave": str(solde.get("5215", 0))}
    lecture = time.perf_counter() - started
    pose = await _timed(server, client, "POST", "/api/comptabilite/clotures-mensuelles", json=body,
                        headers={"Idempotency-Key": f"echelle-{time.time_ns()}"})
    cloture_id = pose.pop("body").json()["id"]
    dossier = await _timed(server, client, "GET", f"/api/comptabilite/clotures-mensuelles/{cloture_id}/dossier")
    dossier.pop("body")
    return {"organisation": org, "mois": f"{annee}-{mois:02d}", "lecture_soldes_seconds": round(lecture, 3),
            "cloture": pose, "dossier": dossier}


async def mesurer(server: Server, cibles: dict[str, Any], repetitions: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token(server.base, ADMIN_EMAIL)}"}
    annee, largest, union = cibles["annee"], cibles["organisations"][0], cibles["union"]
    periode = {"dateDebut": f"{annee}-01-01", "dateFin": f"{annee}-12-31"}
    out: dict[str, Any] = {"cloture": [], "consolidation": [], "etats_consolides": [], "etats": {}}
    async with httpx.AsyncClient(base_url=server.base, timeout=600, headers=headers) as client:
        for _ in range(repetitions):
            out["cloture"].append(await _cloture(server, client, cibles["organisations"], annee))
            for key, path in (("consolidation", "consolidation"), ("etats_consolides", "etats-consolides")):
                step = await _timed(server, client, "GET", f"/api/federations/{union}/{path}", params=periode)
                step.pop("body")
                out[key].append(step)
            for etat in ("balance", "grand-livre", "journal"):
                for fmt in ("pdf", "xlsx"):
                    step = await _timed(server, client, "GET", f"/api/comptabilite/etats/{etat}",
                                        params={"organisationId": largest, **periode, "format": fmt})
                    step.pop("body")
                    out["etats"].setdefault(f"{etat}.{fmt}", []).append(step)
    return out


def _median(steps: list[dict[str, Any]], key: str = "seconds") -> float:
    return round(statistics.median(s[key] for s in steps), 3)


def report(result: dict[str, Any], stamp: str) -> str:
    m = result["mesures"]
    rows = [("closing (checks, POST)", [c["cloture"] for c in m["cloture"]], GOALS["cloture"]),
            ("closing pack (PDF)", [c["dossier"] for c in m["cloture"]], GOALS["dossier"]),
            ("federation consolidation", m["consolidation"], GOALS["consolidation"]),
            ("consolidated statements", m["etats_consolides"], GOALS["etats_consolides"])]
    rows += [(f"{name} of the largest organisation", steps, GOALS["etat"]) for name, steps in m["etats"].items()]
    md = [f"# Scale scenarios ({result['scale']}, {stamp}, commit `{result['commit']}`)", "",
          f"`unionflow serve --workers 2`, PostgreSQL `{result['database']}`; largest organisation: "
          f"{result['entries_largest']:,} entries; {result['entries_total']:,} entries in all; year {result['annee']}; "
          f"{result['repetitions']} repetitions; load average before/after: {result['load_before']} / "
          f"{result['load_after']}.", "",
          "| step | median s | max s | goal s | status | bytes | workers' RSS before, MB | peak above, MB |",
          "|---|---:|---:|---:|---|---:|---:|---:|"]
    for name, steps, goal in rows:
        med = _median(steps)
        md.append(f"| {name} | {med} | {max(s['seconds'] for s in steps)} | {goal} | "
                  f"{'met' if med <= goal else '**not met**'} | {steps[-1]['bytes']:,} | {steps[-1]['rss_base_mb']} | "
                  f"{max(s['rss_peak_extra_mb'] for s in steps)} |")
    md += ["", "Months closed: " + ", ".join(f"{c['mois']} ({c['organisation'][:8]})" for c in m["cloture"])]
    return "\n".join(md) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.echelle", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", choices=sorted(SCALES), default="default")
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    scale = SCALES[args.scale]
    database = pg_database(scale)
    asyncio.run(ensure_pg(scale, database, print))
    url = pg_url(database).replace("postgresql://", "postgresql+asyncpg://")
    asyncio.run(ensure_users(url))
    cibles = asyncio.run(_cibles(pg_url(database)))
    load_before = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    server = start_service("echelle", url, workers=2)
    try:
        mesures = asyncio.run(mesurer(server, cibles, args.repetitions))
    finally:
        server.stop()
    commit = os.popen("git rev-parse --short HEAD").read().strip()
    result = {"scale": scale.name, "database": database, "commit": commit, "annee": cibles["annee"],
              "repetitions": args.repetitions, "entries_largest": cibles["entries"][cibles["organisations"][0]],
              "entries_total": sum(cibles["entries"].values()), "load_before": load_before,
              "load_after": ", ".join(f"{v:.2f}" for v in os.getloadavg()), "mesures": mesures}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = report(result, stamp)
    ecrire(result, "echelle", md, stamp)
    print(md)


if __name__ == "__main__":
    main()
