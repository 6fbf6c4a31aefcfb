"""``python -m bench.reprise [--scale default|national]``: restart after a crash, on the bench's PostgreSQL data.

What a treasurer lives through when the server dies in the middle of a collection day, measured:

1. ``unionflow serve --workers 2`` on the bench's data; counter payments (``PUT /api/cotisations/{id}/payer``, each
   with its ``Idempotency-Key``) sent by 16 concurrent clients;
2. after ``--avant`` seconds the whole process group is SIGKILLed (no drain, no shutdown hook: a crash or the OOM
   killer); every request then in flight gets no answer;
3. the service is started again at once: the time until ``/health/ready`` answers 200, and until the first new
   payment is booked;
4. every payment that got no answer is sent again with the same key, as the console or a phone retries;
5. then the database is read: every due of the run paid exactly once (its amount paid = the sum of its
   allocations = what was owed), one payment per due, and every payment with its accounting entry. A payment
   acknowledged before the crash and missing after, or half written, fails the run.

Writes bench/results/<stamp>-reprise.{json,md}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx

from bench.config import SCALES, pg_database, pg_url
from bench.datagen import ensure_pg
from bench.fixtures import ADMIN_EMAIL, ensure_users, token
from bench.procs import Server, start_service
from bench.report import ecrire

CLIENTS = 16


async def _unpaid(dsn: str, count: int) -> list[tuple[str, str]]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT id, montant_du - montant_paye FROM cotisation WHERE statut IN "
                                "('EN_ATTENTE', 'EN_RETARD') ORDER BY random() LIMIT $1", count)
    finally:
        await conn.close()
    return [(str(r[0]), str(r[1])) for r in rows]


async def _pay(client: httpx.AsyncClient, headers: dict[str, str], due: tuple[str, str]) -> int | None:
    cid, amount = due
    try:
        response = await client.put(f"/api/cotisations/{cid}/payer", json={"montant": amount},
                                    headers={**headers, "Idempotency-Key": f"reprise-{cid}"})
    except httpx.HTTPError:
        return None
    return response.status_code


async def _load(base: str, headers: dict[str, str], dues: list[tuple[str, str]], seconds: float,
                kill: Any) -> dict[str, int | None]:
    """Pay from a shared queue with CLIENTS clients; ``kill`` is called after ``seconds``; returns each due's
    answer (None: no answer)."""
    queue = list(reversed(dues))
    outcome: dict[str, int | None] = {}
    started = time.monotonic()

    async def client_loop() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            while queue and time.monotonic() - started < seconds + 5:
                due = queue.pop()
                outcome[due[0]] = await _pay(client, headers, due)
                if outcome[due[0]] is None:
                    return

    async def killer() -> None:
        await asyncio.sleep(seconds)
        kill()

    await asyncio.gather(killer(), *(client_loop() for _ in range(CLIENTS)))
    return outcome


async def _first_payment(base: str, headers: dict[str, str], due: tuple[str, str], t0: float) -> float:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        status = await _pay(client, headers, due)
    if status != 200:
        raise RuntimeError(f"first payment after the restart answered {status}")
    return time.monotonic() - t0


async def _retry(base: str, headers: dict[str, str], dues: list[tuple[str, str]]) -> dict[str, int | None]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        return {due[0]: await _pay(client, headers, due) for due in dues}


CHECK = """
SELECT c.id, c.montant_du, c.montant_paye, c.statut,
       (SELECT coalesce(sum(a.montant), 0) FROM paiement_allocation a WHERE a.cotisation_id = c.id) AS alloue,
       (SELECT count(DISTINCT a.paiement_id) FROM paiement_allocation a WHERE a.cotisation_id = c.id) AS paiements,
       (SELECT count(*) FROM paiement_allocation a JOIN ecriture_comptable e ON e.paiement_id = a.paiement_id
         WHERE a.cotisation_id = c.id) AS ecritures
FROM cotisation c WHERE c.id = ANY($1::uuid[])
"""


async def _verifier(dsn: str, ids: list[str]) -> dict[str, Any]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(CHECK, ids)
    finally:
        await conn.close()
    wrong = [dict(r) for r in rows if not (r["statut"] == "PAYEE" and r["montant_paye"] == r["montant_du"]
                                          == r["alloue"] and r["paiements"] == 1 and r["ecritures"] == 1)]
    return {"dues": len(rows), "incoherentes": len(wrong), "exemples": [
        {k: str(v) for k, v in r.items()} for r in wrong[:5]]}


def _crash(server: Server) -> None:
    os.killpg(server.proc.pid, signal.SIGKILL)


def mesurer(url: str, dsn: str, avant: float) -> dict[str, Any]:
    dues = asyncio.run(_unpaid(dsn, 20_000))
    first = start_service("reprise-1", url, workers=2)
    headers = {"Authorization": "Bearer " + token(first.base, ADMIN_EMAIL)}
    crashed_at: list[float] = []

    def kill() -> None:
        crashed_at.append(time.monotonic())
        _crash(first)

    try:
        outcome = asyncio.run(_load(first.base, headers, dues[:-1], avant, kill))
    finally:
        first.proc.wait(timeout=30)
    t0 = time.monotonic()
    # The same address: a restarted service is where its clients are, and their tokens name it as issuer.
    second = start_service("reprise-2", url, workers=2, port=first.port)
    ready = time.monotonic() - t0
    try:
        first_payment = asyncio.run(_first_payment(second.base, headers, dues[-1], t0))
        unanswered = [d for d in dues if outcome.get(d[0], 0) is None]
        retried = asyncio.run(_retry(second.base, headers, unanswered))
    finally:
        second.stop()
    answered = [cid for cid, status in outcome.items() if status == 200]
    return {
        "avant_crash_s": avant, "paiements_acquittes": len(answered),
        "sans_reponse": len(unanswered),
        "autres_statuts": sorted({str(s) for s in outcome.values() if s not in (200, None)}),
        "redemarrage_pret_s": round(ready, 2), "premier_paiement_s": round(first_payment, 2),
        "reprises": {str(k): v for k, v in Counter(retried.values()).items()},
        "verification": asyncio.run(_verifier(dsn, answered + [d[0] for d in unanswered] + [dues[-1][0]])),
    }


def report(result: dict[str, Any], stamp: str) -> str:
    lines = [f"# Restart after a crash — {stamp}", "",
             f"Scale `{result['scale']}`, commit `{result['commit']}`, {CLIENTS} clients paying dues, "
             f"SIGKILL to the server's process group after {result['avant_crash_s']} s.", "",
             "| repetition | payments acknowledged before the crash | without an answer | ready after restart (s) "
             "| first new payment (s) | retries (same key) | dues checked | inconsistent |",
             "|---:|---:|---:|---:|---:|---|---:|---:|"]
    for n, m in enumerate(result["mesures"], 1):
        v = m["verification"]
        lines.append(f"| {n} | {m['paiements_acquittes']} | {m['sans_reponse']} | {m['redemarrage_pret_s']} | "
                     f"{m['premier_paiement_s']} | {m['reprises']} | {v['dues']} | {v['incoherentes']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.reprise", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", choices=sorted(SCALES), default="default")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--avant", type=float, default=5.0, help="seconds of payments before the crash")
    args = parser.parse_args()
    scale = SCALES[args.scale]
    database = pg_database(scale)
    asyncio.run(ensure_pg(scale, database, print))
    dsn = pg_url(database)
    url = dsn.replace("postgresql://", "postgresql+asyncpg://")
    asyncio.run(ensure_users(url))
    mesures = [mesurer(url, dsn, args.avant) for _ in range(args.repetitions)]
    result = {"scale": scale.name, "commit": os.popen("git rev-parse --short HEAD").read().strip(),
              "avant_crash_s": args.avant, "mesures": mesures}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = report(result, stamp)
    ecrire(result, "reprise", md, stamp)
    print(md)
    bad = [m for m in mesures if m["verification"]["incoherentes"] or set(m["reprises"]) - {"200"}]
    if bad:
        raise SystemExit(f"inconsistent after the crash: {json.dumps(bad, default=str)[:2000]}")


if __name__ == "__main__":
    main()
