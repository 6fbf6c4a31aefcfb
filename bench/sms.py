"""``python -m bench.sms [--membres 10000] [--debit N]`` (``make bench-sms``): a wave of dues reminders by SMS
through the real outbox, drained at the gateway's rate.

N members without e-mail (bench/telephones.py), each with last month's dues unpaid. The wave is queued as a
treasurer does it, ``POST /api/cotisations/rappels/groupes`` with 500 members per request (the route's maximum),
through the real application (ASGI): one SMS per member in the outbox. Then the delivery worker
(``LivreurNotifications``, what ``unionflow jobs envoyer-notifications`` runs) sends them to a loopback server
speaking Africa's Talking's protocol (tests/sms/passerelles.py, the one the tests use) at ``--debit`` messages per
second (default: ``UNIONFLOW_SMS_MESSAGES_PAR_SECONDE``). Reports messages per second queued and delivered, the
largest batch and the most messages the gateway received within any one second: neither may exceed the rate.
Writes bench/results/<timestamp>-sms.{json,md}."""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench.report import ecrire
from bench.telephones import base_neuve, charge, client_admin, cotisations, sans_lignes_de_requete, semer

PAR_REQUETE = 500  # the route's maximum


class Horodates(list[dict[str, str]]):
    """The loopback gateway's list of received messages, each arrival's time kept beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.instants: list[float] = []

    def append(self, item: dict[str, str]) -> None:
        self.instants.append(time.monotonic())
        super().append(item)


def pointe(instants: list[float], fenetre: float = 1.0) -> int:
    """The most arrivals within any window of ``fenetre`` seconds (sliding)."""
    pire, debut = 0, 0
    for fin, t in enumerate(instants):
        while t - instants[debut] >= fenetre:
            debut += 1
        pire = max(pire, fin - debut + 1)
    return pire


async def membres(url: str) -> list[uuid.UUID]:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        return [r[0] for r in await conn.fetch("SELECT id FROM membre ORDER BY numero_membre")]
    finally:
        await conn.close()


async def statuts(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        return {r[0]: r[1] for r in await conn.fetch(
            "SELECT statut, count(*) FROM notification WHERE canal = 'SMS' GROUP BY statut")}
    finally:
        await conn.close()


async def mettre_en_file(url: str, nombre: int) -> dict[str, Any]:
    org = await semer(url, nombre, None)
    ids = await membres(url)
    async with client_admin(url) as client:
        await cotisations(client, org, nombre)
        debut = time.perf_counter()
        envoyes = 0
        for i in range(0, len(ids), PAR_REQUETE):
            response = await client.post("/api/cotisations/rappels/groupes",
                                          json=[str(m) for m in ids[i:i + PAR_REQUETE]])
            assert response.status_code == 200, response.text[:500]
            envoyes += response.json()["envoyes"]
        duree = time.perf_counter() - debut
    return {"rappels": envoyes, "file_s": round(duree, 2), "file_par_s": round(envoyes / duree, 1)}


async def vider(url: str, debit: int) -> dict[str, Any]:
    from tests.sms.passerelles import africastalking

    from unionflow.config import Settings
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.notifications.delivery import LivreurNotifications

    recus = Horodates()
    lots: list[tuple[float, int]] = []
    with africastalking(recus=recus) as (_passerelle, adresse):
        settings = Settings(database_url=url, sms_passerelle="africastalking", sms_africastalking_url=adresse,
                            sms_africastalking_username="sandbox", sms_africastalking_api_key="at-key",
                            sms_gateway_sender="UNIONFLOW", sms_messages_par_seconde=debit)
        engine = create_engine(settings)
        try:
            debut = time.perf_counter()
            bilan = await LivreurNotifications(create_sessionmaker(engine), settings).run(
                avancement=lambda n: lots.append((time.perf_counter() - debut, n)))
            duree = time.perf_counter() - debut
        finally:
            await engine.dispose()
    # The first arrival to the last: the steady rate, without the worker's start-up.
    etendue = recus.instants[-1] - recus.instants[0] if len(recus.instants) > 1 else 0.0
    # A full batch (the rate's worth) must last a second, its wait included, before the next one starts.
    periodes = [fin - debut_lot for (debut_lot, _), (fin, n) in zip([(0.0, 0), *lots], lots, strict=False)
                if n >= debit]
    plus_gros = max((n for _, n in lots), default=0)
    return {"debit": debit, "livres": len(recus), "envoyees": bilan.envoyees, "reportees": bilan.reportees,
            "echouees": bilan.echouees, "livraison_s": round(duree, 2),
            "livres_par_s": round(len(recus) / duree, 2) if duree else 0,
            "livres_par_s_regime": round((len(recus) - 1) / etendue, 2) if etendue else 0,
            "lots": len(lots), "plus_gros_lot": plus_gros, "lot_plein_le_plus_court_s": round(min(periodes), 3)
            if periodes else None, "pointe_1s": pointe(recus.instants),
            "debit_respecte": plus_gros <= debit and all(p >= 0.99 for p in periodes),
            "seconde_glissante_respectee": pointe(recus.instants) <= debit}


async def run(nombre: int = 10_000, debit: int | None = None) -> dict[str, Any]:
    from unionflow.config import Settings

    debit = debit or Settings().sms_messages_par_seconde
    async with base_neuve("sms") as url:
        avant = charge()
        file = await mettre_en_file(url, nombre)
        livraison = await vider(url, debit)
        apres = charge()
        final = await statuts(url)
    return {"scenario": "sms", "membres": nombre, "base": "postgresql", "debut": avant, "fin": apres, **file,
            **livraison, "statuts": final}


def rapport(r: dict[str, Any], stamp: str, commit: str) -> str:
    return "\n".join([
        f"# SMS reminder wave: {r['membres']:,} members at {r['debit']} SMS/s ({stamp})", "",
        f"Commit `{commit}`, PostgreSQL, the delivery worker in process, a loopback Africa's Talking gateway. Load "
        f"average (1, 5, 15 min) at start {r['debut']['charge']} ({r['debut']['le']}), at end {r['fin']['charge']} "
        f"({r['fin']['le']}).", "",
        "| step | figure |", "|---|---|",
        f"| queued (`POST /api/cotisations/rappels/groupes`, {PAR_REQUETE} members a request) | {r['rappels']:,} "
        f"reminders in {r['file_s']} s: **{r['file_par_s']}/s** |",
        f"| delivered to the gateway | {r['livres']:,} in {r['livraison_s']} s: **{r['livres_par_s']}/s** "
        f"({r['livres_par_s_regime']}/s first to last arrival) |",
        f"| outcome | {r['envoyees']:,} sent, {r['reportees']} postponed, {r['echouees']} failed; outbox SMS rows: "
        f"{r['statuts']} |",
        f"| batches | {r['lots']}, the largest {r['plus_gros_lot']} SMS (rate {r['debit']}); the shortest full "
        f"batch, its wait included: {r['lot_plein_le_plus_court_s']} s |",
        f"| rate respected (no batch over the rate, none shorter than 1 s) | "
        f"{'yes' if r['debit_respecte'] else 'NO'} |",
        f"| most SMS the gateway received within any sliding 1 s | {r['pointe_1s']} "
        f"({'within' if r['seconde_glissante_respectee'] else 'OVER'} the rate) |"]) + "\n"


def main() -> None:
    from bench.run import _commit

    parser = argparse.ArgumentParser(prog="python -m bench.sms", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--membres", type=int, default=10_000)
    parser.add_argument("--debit", type=int, default=None, help="SMS per second (default: the setting)")
    args = parser.parse_args()
    commit = _commit()
    with sans_lignes_de_requete():
        resultat = asyncio.run(run(args.membres, args.debit)) | {"commit": commit}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = rapport(resultat, stamp, commit)
    ecrire(resultat, "sms", md, stamp)
    print(md)


if __name__ == "__main__":
    main()
