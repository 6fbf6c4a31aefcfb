"""``python -m bench.moteurs [--membres 5000] [--workers 2]`` (``make bench-moteurs``): our task table and outbox
against Celery on the same jobs, each doing its effect through UnionFlow's own code on PostgreSQL (issue 32, item 4).

Jobs: ``rappels``, a reminder wave (one SMS per member queued by ``POST /api/cotisations/rappels/groupes``, then
delivered to a loopback Africa's Talking gateway); ``generation``, the monthly dues of several organisations, one
background task each. Engines: ``table`` (the outbox's leases, the task table and its scheduler, N processes) and
``celery`` (RabbitMQ, N solo workers, ``acks_late``, ``task_reject_on_worker_lost``, prefetch 1; the same rows,
transport and executor, Celery doing the claiming: bench/moteurs_travail.py). Each pair runs once undisturbed
(throughput, CPU per job) and once with a worker SIGKILLed mid-run at a fixed point: for ``rappels`` when the
gateway holds the ``--tuer-apres``-th SMS (the worker sending it dies before recording it), for ``generation`` once
a task has committed its first chunk. Counted: effects lost, duplicated (at the gateway per recipient, in the
database per member), and the time from the kill to the interrupted job's completion.
Writes bench/results/<timestamp>-moteurs.{json,md}."""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench.moteurs_mesures import (
    BROKER,
    CpuPostgres,
    Passerelle,
    Travailleurs,
    consommateurs,
    pid_du_port,
    pids_broker,
    vider_file,
)
from bench.procs import cpu_seconds

MOTEURS = ("table", "celery")


async def attendre(condition: Callable[[], Any], delai: float, travailleurs: Travailleurs) -> bool:
    fin = time.monotonic() + delai
    while time.monotonic() < fin:
        if await condition():
            return True
        travailleurs.vivants()
        await asyncio.sleep(0.05)
    return bool(await condition())


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg", "postgresql")


def _demarrer(moteur: str, travail: str, n: int, env: dict[str, str], file: str) -> Travailleurs:
    if moteur == "table":
        return Travailleurs(f"table-{travail}", ["table", travail], n, env)
    # One Celery worker with N pool processes: how Celery is deployed (``celery worker -c N``).
    return Travailleurs(f"celery-{travail}", ["celery", str(n)], 1, {**env, "BENCH_MOTEURS_BROKER": BROKER,
                                                                          "BENCH_MOTEURS_FILE": file})


async def _pret(moteur: str, travailleurs: Travailleurs, n: int, file: str) -> None:
    if moteur == "celery":
        async def prets() -> bool:
            return await asyncio.to_thread(consommateurs, file) >= 1 and len(travailleurs.pids) > n

        assert await attendre(prets, 90, travailleurs), "Celery workers not consuming after 90 s"


def _publier(tache: Any, ids: list[uuid.UUID], file: str) -> dict[str, float]:
    """Celery's extra step: one message per job (our engine's rows are its queue)."""
    cpu, debut = time.process_time(), time.perf_counter()
    for i in ids:
        tache.apply_async(args=[str(i)], queue=file)
    return {"publication_s": round(time.perf_counter() - debut, 2),
            "publication_cpu_ms_par_job": round((time.process_time() - cpu) * 1000 / max(1, len(ids)), 3)}


async def rappels(url: str, passerelle: Passerelle, adresse: str, moteur: str, n: int, tuer_apres: int | None,
                  bail: int, file: str) -> dict[str, Any]:
    from bench.moteurs_travail import livrer

    conn = await asyncpg.connect(_dsn(url))
    try:
        _ = await conn.execute(
            "UPDATE notification SET statut = 'EN_ATTENTE', tentatives = 0, verrouillee_jusqua = NULL, "
            "date_envoi = NULL, prochaine_tentative = NULL, reference_passerelle = NULL, derniere_erreur = NULL "
            "WHERE canal = 'SMS'")
        ids = [r[0] for r in await conn.fetch("SELECT id FROM notification WHERE canal = 'SMS' ORDER BY created_at")]
    finally:
        await conn.close()
    passerelle.remettre()
    if moteur == "celery":
        await asyncio.to_thread(vider_file, file)
    env = {"UNIONFLOW_DATABASE_URL": url, "UNIONFLOW_SMS_PASSERELLE": "africastalking",
           "UNIONFLOW_SMS_AFRICASTALKING_URL": adresse, "UNIONFLOW_SMS_AFRICASTALKING_USERNAME": "sandbox",
           "UNIONFLOW_SMS_AFRICASTALKING_API_KEY": "at-key", "UNIONFLOW_SMS_GATEWAY_SENDER": "UNIONFLOW",
           # The gateway's rate is not what is measured: high enough for neither engine to wait on it.
           "UNIONFLOW_SMS_MESSAGES_PAR_SECONDE": "100000", "UNIONFLOW_NOTIFICATION_BAIL_SECONDS": str(bail)}
    etat: dict[str, Any] = {}
    broker, postgres = pids_broker(), CpuPostgres(url.rsplit("/", 1)[1])
    travailleurs = _demarrer(moteur, "rappels", n, env, file)

    def sur_reception(numero: int, port: int, to: str) -> None:
        if numero == 1:
            etat.update(cpu0=travailleurs.cpu(), broker0=cpu_seconds(broker))
            postgres.debut()
        if tuer_apres is not None and numero == tuer_apres:
            pid = pid_du_port(port, travailleurs.pids)
            travailleurs.tuer(pid if pid is not None else travailleurs.pids[0])
            etat.update(tue=time.monotonic(), cible=to, cible_trouvee=pid is not None)

    try:
        await _pret(moteur, travailleurs, n, file)
        passerelle.sur_reception = sur_reception
        if moteur == "celery":
            etat |= await asyncio.to_thread(_publier, livrer, ids, file)

        async def livres() -> bool:
            return len(passerelle.recus) >= len(ids)

        complet = await attendre(livres, 60 + 3 * bail + len(ids) / 20, travailleurs)
        if complet and tuer_apres is None:
            etat.update(cpu1=travailleurs.cpu(), broker1=cpu_seconds(broker), postgres=postgres.fin())
        await asyncio.sleep(1.0)  # a late duplicate would land here
    finally:
        passerelle.sur_reception = None
        travailleurs.arreter()
    conn = await asyncpg.connect(_dsn(url))
    try:
        statuts = {r[0]: r[1] for r in await conn.fetch(
            "SELECT statut, count(*) FROM notification WHERE canal = 'SMS' GROUP BY statut")}
    finally:
        await conn.close()
    return _bilan_rappels(passerelle, len(ids), etat, statuts)


def _bilan_rappels(passerelle: Passerelle, m: int, etat: dict[str, Any], statuts: dict[str, int]) -> dict[str, Any]:
    arrivees = passerelle.arrivees
    distincts = len(passerelle.recus)
    r: dict[str, Any] = {"jobs": m, "effets": distincts, "perdus": m - distincts,
                         "doubles": sum(passerelle.recus.values()) - distincts,
                         "lignes_envoyees": statuts.get("ENVOYEE", 0), "statuts": statuts,
                         **{k: etat[k] for k in ("publication_s", "publication_cpu_ms_par_job") if k in etat}}
    if len(arrivees) > 1:
        premier = {}
        for t, to in arrivees:
            premier.setdefault(to, t)
        duree = max(premier.values()) - arrivees[0][0]
        r["duree_s"] = round(duree, 2)
        r["jobs_par_s"] = round((distincts - 1) / duree, 1) if duree else None
    if "cpu1" in etat:
        r["cpu_ms_par_job"] = round((etat["cpu1"] - etat["cpu0"]) * 1000 / max(1, m - 1), 3)
        r["broker_cpu_ms_par_job"] = round((etat["broker1"] - etat["broker0"]) * 1000 / max(1, m - 1), 3)
        r["postgres_cpu_ms_par_job"] = round(etat["postgres"] * 1000 / max(1, m - 1), 3)
    if "tue" in etat:
        secondes = [t for t, to in arrivees if to == etat["cible"]][1:]
        r["tue_au_message"] = etat["cible"]
        r["cible_trouvee"] = etat["cible_trouvee"]
        r["reprise_s"] = round(secondes[0] - etat["tue"], 2) if secondes else None
        r["fin_apres_kill_s"] = round(arrivees[-1][0] - etat["tue"], 2)
    return r


async def _taches(url: str, orgs: list[uuid.UUID], annee: int, mois: int, par_org: int) -> list[uuid.UUID]:
    """One dues-generation task per organisation, as ``POST /api/cotisations/generer`` creates it above the
    threshold (cotisations/organisation_service.py)."""
    from unionflow.config import Settings
    from unionflow.core.db import create_engine, create_sessionmaker
    from unionflow.cotisations.schemas import GenererCotisationsRequest
    from unionflow.models import Tache
    from unionflow.models.planificateur import StatutTache, TypeTache

    engine = create_engine(Settings(database_url=url))
    try:
        async with create_sessionmaker(engine)() as session:
            taches = [Tache(type=TypeTache.GENERATION_COTISATIONS.value, statut=StatutTache.EN_ATTENTE.value,
                            progression=0, traites=0, total=par_org, cree_par="bench-moteurs", organisation_id=org,
                            parametres=GenererCotisationsRequest(
                                organisation_id=org, type_cotisation="MENSUELLE", annee=annee, mois=mois,
                                montant="2500").model_dump(mode="json")) for org in orgs]
            session.add_all(taches)
            await session.commit()
            return [t.id for t in taches]
    finally:
        await engine.dispose()


async def generation(url: str, orgs: list[uuid.UUID], par_org: int, moteur: str, n: int, tuer: bool, mois: int,
                     bail: int, tick: float, file: str) -> dict[str, Any]:
    from bench.moteurs_travail import generer

    annee = datetime.now(UTC).year
    ids = await _taches(url, orgs, annee, mois, par_org)
    if moteur == "celery":
        await asyncio.to_thread(vider_file, file)
    env = {"UNIONFLOW_DATABASE_URL": url, "UNIONFLOW_PLANIFICATEUR_BAIL_SECONDS": str(bail),
           "UNIONFLOW_PLANIFICATEUR_TICK_SECONDS": str(tick)}
    travailleurs = _demarrer(moteur, "generation", n, env, file)
    etat: dict[str, Any] = {}
    conn = await asyncpg.connect(_dsn(url))
    broker, postgres = pids_broker(), CpuPostgres(url.rsplit("/", 1)[1], frozenset({conn.get_server_pid()}))
    try:
        await _pret(moteur, travailleurs, n, file)
        if moteur == "celery":
            etat |= await asyncio.to_thread(_publier, generer, ids, file)

        async def finies() -> bool:
            rows = await conn.fetch("SELECT id, statut, traites, total, verrouillee_par FROM tache "
                                    "WHERE id = ANY($1::uuid[])", ids)
            if "debut" not in etat and any(r["statut"] != "EN_ATTENTE" for r in rows):
                etat.update(debut=time.monotonic(), cpu0=travailleurs.cpu(), broker0=cpu_seconds(broker))
                postgres.debut()
            for r in rows:
                if tuer and "tue" not in etat and r["statut"] == "EN_COURS" and 0 < r["traites"] < r["total"] \
                        and r["verrouillee_par"] and int(r["verrouillee_par"].split(":")[1]) in travailleurs.pids:
                    travailleurs.tuer(int(r["verrouillee_par"].split(":")[1]))
                    etat.update(tue=time.monotonic(), cible=r["id"], traites_au_kill=r["traites"])
                if r["id"] == etat.get("cible") and r["statut"] == "TERMINEE" and "reprise" not in etat:
                    etat["reprise"] = time.monotonic()
            return all(r["statut"] in ("TERMINEE", "ECHOUEE") for r in rows)

        complet = await attendre(finies, 120 + 3 * bail + len(ids) * par_org / 200, travailleurs)
        etat["fin"] = time.monotonic()
        if complet and not tuer:
            etat.update(cpu1=travailleurs.cpu(), broker1=cpu_seconds(broker), postgres=postgres.fin())
        effets = await conn.fetchrow("SELECT count(*) AS n, count(DISTINCT membre_id) AS d FROM cotisation "
                                     "WHERE annee = $1 AND mois = $2", annee, mois)
        statuts = {r[0]: r[1] for r in await conn.fetch(
            "SELECT statut, count(*) FROM tache WHERE id = ANY($1::uuid[]) GROUP BY statut", ids)}
    finally:
        travailleurs.arreter()
        await conn.close()
    attendus = len(orgs) * par_org
    r: dict[str, Any] = {"jobs": len(ids), "membres": attendus, "effets": effets["d"],
                         "perdus": attendus - effets["d"], "doubles": effets["n"] - effets["d"],
                         "statuts": statuts, **{k: etat[k] for k in ("publication_s", "publication_cpu_ms_par_job")
                                                if k in etat}}
    if "debut" in etat:
        duree = etat["fin"] - etat["debut"]
        r.update(duree_s=round(duree, 2), jobs_par_s=round(len(ids) / duree, 2),
                 membres_par_s=round(attendus / duree, 1))
    if "cpu1" in etat:
        r.update(cpu_ms_par_job=round((etat["cpu1"] - etat["cpu0"]) * 1000 / len(ids), 1),
                 broker_cpu_ms_par_job=round((etat["broker1"] - etat["broker0"]) * 1000 / len(ids), 1),
                 postgres_cpu_ms_par_job=round(etat["postgres"] * 1000 / len(ids), 1))
    if "tue" in etat:
        r.update(traites_au_kill=etat["traites_au_kill"],
                 reprise_s=round(etat["reprise"] - etat["tue"], 2) if "reprise" in etat else None)
    return r


async def run(membres: int = 5000, workers: int = 2, tuer_apres: int | None = None, organisations: int = 8,
              par_org: int = 2000, bail: int = 30, tick: float = 1.0,
              moteurs: tuple[str, ...] = MOTEURS) -> dict[str, Any]:
    """Every job on every engine, undisturbed then with one kill; ``bail``: our leases (outbox and task table) in
    seconds, which is our recovery time by design (production: 300 s and 3600 s)."""
    from bench.telephones import charge

    tuer_apres = tuer_apres or max(2, membres // 4)
    resultat: dict[str, Any] = {"workers": workers, "bail_s": bail, "tick_s": tick, "broker": BROKER,
                                "debut": charge(), "rappels": {}, "generation": {}}
    passerelle = Passerelle()
    file = f"moteurs-{uuid.uuid4().hex[:8]}"
    try:
        await _comparer(resultat, passerelle, membres, workers, tuer_apres, organisations, par_org, bail,
                                    tick, moteurs, file)
    finally:
        if "celery" in moteurs:
            await asyncio.to_thread(vider_file, file, True)
    resultat["fin"] = charge()
    return resultat


async def _comparer(resultat: dict[str, Any], passerelle: Passerelle, membres: int, workers: int, tuer_apres: int,
                    organisations: int, par_org: int, bail: int, tick: float, moteurs: tuple[str, ...], file: str
                    ) -> None:
    from bench.generation_cotisations import seed
    from bench.sms import mettre_en_file
    from bench.telephones import base_neuve

    async with base_neuve("moteurs") as url:
        resultat["file"] = await mettre_en_file(url, membres)
        with passerelle.servir() as adresse:
            for moteur in moteurs:
                for tue in (False, True):
                    cle = f"{moteur}{'_kill' if tue else ''}"
                    resultat["rappels"][cle] = await rappels(url, passerelle, adresse, moteur, workers,
                                                             tuer_apres if tue else None, bail, file)
    async with base_neuve("moteurs_gen") as url:
        orgs = await seed(url, organisations * par_org, organisations)
        mois = 0
        for moteur in moteurs:
            for tue in (False, True):
                mois += 1
                cle = f"{moteur}{'_kill' if tue else ''}"
                resultat["generation"][cle] = await generation(url, orgs, par_org, moteur, workers, tue, mois,
                                                               bail, tick, file)


def _ligne(travail: str, cle: str, r: dict[str, Any]) -> str:
    debit = f"{r.get('jobs_par_s', '—')}" + (f" ({r['membres_par_s']} members/s)" if "membres_par_s" in r else "")
    reprise = r.get("reprise_s", "—") if cle.endswith("_kill") else "—"
    return (f"| {travail} | {cle} | {r['jobs']:,} | {debit} | {r.get('cpu_ms_par_job', '—')} | "
            f"{r.get('broker_cpu_ms_par_job', '—')} | {r.get('postgres_cpu_ms_par_job', '—')} | "
            f"{r.get('publication_s', '—')} | {r['perdus']} | "
            f"{r['doubles']} | {reprise} |")


def rapport(r: dict[str, Any], stamp: str, commit: str) -> str:
    lignes = [
        f"# Task engines: our task table and outbox against Celery ({stamp})", "",
        f"Commit `{commit}`, PostgreSQL, {r['workers']} worker processes per engine, Celery on `{r['broker']}` "
        f"(prefork pool, acks_late, task_reject_on_worker_lost, prefetch 1). Our leases {r['bail_s']} s (recovery "
        f"by design), scheduler tick {r['tick_s']} s. Load average at start {r['debut']['charge']}, at end "
        f"{r['fin']['charge']}. Queued by the API: {r['file']['rappels']:,} reminders in {r['file']['file_s']} s.",
        "",
        "| job | engine, run | jobs | jobs/s | worker CPU ms/job | broker CPU ms/job | PostgreSQL CPU ms/job | "
        "publish s | lost | duplicated | kill → interrupted job done (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for travail in ("rappels", "generation"):
        for cle, res in r[travail].items():
            lignes.append(_ligne(travail, cle, res))
    lignes += ["", "Lost and duplicated: at the gateway per recipient (rappels), in the database per member and "
               "month (generation). A `_kill` run's jobs/s includes the recovery."]
    return "\n".join(lignes) + "\n"


def main() -> None:
    from bench.run import _commit
    from bench.telephones import sans_lignes_de_requete
    from bench.ussd import ecrire

    parser = argparse.ArgumentParser(prog="python -m bench.moteurs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--membres", type=int, default=5000, help="reminders of the wave")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tuer-apres", type=int, default=None, help="kill at this SMS (default: a quarter)")
    parser.add_argument("--organisations", type=int, default=8)
    parser.add_argument("--par-org", type=int, default=2000, help="members per organisation (the task threshold)")
    parser.add_argument("--bail", type=int, default=30, help="our leases, seconds")
    parser.add_argument("--tick", type=float, default=1.0, help="our scheduler's tick, seconds")
    args = parser.parse_args()
    commit = _commit()
    with sans_lignes_de_requete():
        resultat = asyncio.run(run(args.membres, args.workers, args.tuer_apres, args.organisations, args.par_org,
                                   args.bail, args.tick)) | {"commit": commit}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = rapport(resultat, stamp, commit)
    ecrire(resultat, "moteurs", md, stamp)
    print(md)


if __name__ == "__main__":
    main()
