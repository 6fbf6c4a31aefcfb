"""``python -m bench.ussd [--sessions 1000] [--connexions 100]`` (``make bench-ussd``): USSD sessions from many
gateway connections at once against the real server (``unionflow serve``, production settings, PostgreSQL).

Each session walks one real menu path, 3 to 5 answers, each answer waited for before the next input, as a
gateway does: PIN then balance, last receipts, a receipt's verification (number, then key), the dues to pay
(list, then one), aid request, next event. ``--connexions`` keep-alive connections share the sessions; every
member calls once (one phone, one session: the per-phone limit is the production one). An answer is an error
when it is not 200 or not the screen the path expects. Reports p50/p95/p99/max per answer, overall and per
kind (first screen, the PIN typed, the screens after it), and the load average before and after: the machine is
shared. Writes bench/results/<timestamp>-ussd.{json,md}. The data: bench/telephones.py."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench.driver import read_response
from bench.report import ecrire
from bench.telephones import (
    Recu,
    acomptes,
    analyser,
    backends,
    base_neuve,
    charge,
    client_admin,
    cotisations,
    sans_lignes_de_requete,
    semer,
    telephone,
)

PIN = "2580"
SECRET = "bench-ussd-gateway-secret"
CHEMINS = ("solde", "recus", "verifier", "payer", "aide", "evenement")


@dataclass(frozen=True)
class Session:
    numero: int
    telephone: str
    chemin: str
    saisies: list[str]  # ``text`` of each step: "", "2580", "2580*1", ...
    attendu: tuple[str, ...]  # one of them in the last screen


def sessions(nombre: int, membres: int, recus: list[Recu]) -> list[Session]:
    """One session per member (member i calls once), the paths in turn."""
    faites = []
    for i in range(nombre):
        chemin = CHEMINS[i % len(CHEMINS)]
        suite, attendu = {
            "solde": (["1"], ("Solde:",)), "recus": (["3"], ("Derniers recus", "Aucun paiement")),
            "payer": (["2", "1"], ("Code de paiement",)), "aide": (["5"], ("aucune demande",)),
            "evenement": (["6"], ("Aucun evenement",)),
            "verifier": (["4", recus[i % len(recus)].numero, recus[i % len(recus)].cle] if recus else ["4"],
                         ("authentique",) if recus else ("Numero du recu",))}[chemin]
        saisies = ["", PIN] + ["*".join([PIN, *suite[:k]]) for k in range(1, len(suite) + 1)]
        faites.append(Session(i, telephone(i % membres), chemin, saisies, attendu))
    return faites


def genre(etape: int) -> str:
    return "accueil" if etape == 0 else "pin" if etape == 1 else "ecran"


def attendu(session: Session, etape: int, ecran: str) -> bool:
    if etape == 0:
        return ecran.startswith("CON Entrez votre code PIN")
    if etape == 1:
        return ecran.startswith("CON UnionFlow")
    if etape < len(session.saisies) - 1:
        return ecran.startswith("CON ")
    return ecran.startswith(("END ", "CON ")) and any(a in ecran for a in session.attendu)


# An answer: (status, screen). The spawned server is called over raw keep-alive sockets (bench/driver.py: a
# client library would take CPU from the server on 2 cores); the test calls the ASGI app through httpx.
Appel = Callable[[str, str, str], Awaitable[tuple[int, str]]]


@dataclass
class Mesures:
    latences: dict[str, list[float]] = field(default_factory=lambda: {"accueil": [], "pin": [], "ecran": []})
    # --profil (in process, one answer at a time): CPU seconds of the process and SQL statements per answer
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"accueil": [], "pin": [], "ecran": []})
    requetes: dict[str, list[int]] = field(default_factory=lambda: {"accueil": [], "pin": [], "ecran": []})
    compteur: list[int] | None = None
    erreurs: int = 0
    par_statut: dict[str, int] = field(default_factory=dict)  # errors by HTTP status ("transport": no answer)
    exemples: list[str] = field(default_factory=list)
    sessions_ok: int = 0

    def toutes(self) -> list[float]:
        return [v for valeurs in self.latences.values() for v in valeurs]

    def erreur(self, texte: str, statut: str) -> None:
        self.erreurs += 1
        self.par_statut[statut] = self.par_statut.get(statut, 0) + 1
        if len(self.exemples) < 10:
            self.exemples.append(texte[:300])


async def jouer(session: Session, appel: Appel, mesures: Mesures, par_etape: bool = False) -> None:
    """``par_etape``: a new gateway session id at every step (what the PIN costs when verified at every step)."""
    ident = f"ATUid_bench_{session.numero}"
    for etape, texte in enumerate(session.saisies):
        debut, cpu = time.perf_counter(), time.process_time()
        requetes = mesures.compteur[0] if mesures.compteur is not None else 0
        try:
            statut, ecran = await appel(f"{ident}_{etape}" if par_etape else ident, session.telephone, texte)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            mesures.erreur(f"{session.chemin} step {etape}: {type(exc).__name__}: {exc}", "transport")
            return
        mesures.latences[genre(etape)].append(time.perf_counter() - debut)
        if mesures.compteur is not None:
            mesures.cpu[genre(etape)].append(time.process_time() - cpu)
            mesures.requetes[genre(etape)].append(mesures.compteur[0] - requetes)
        if statut != 200 or not attendu(session, etape, ecran):
            mesures.erreur(f"{session.chemin} step {etape} text={texte!r}: {statut} {ecran!r}",
                           str(statut) if statut != 200 else "200, unexpected screen")
            return
    mesures.sessions_ok += 1


def corps(ident: str, numero: str, texte: str) -> str:
    return urllib.parse.urlencode({"sessionId": ident, "serviceCode": "*384*31#", "phoneNumber": numero,
                                   "text": texte})


class Connexion:
    """One gateway connection: HTTP/1.1 keep-alive, reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.flux: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def __call__(self, ident: str, numero: str, texte: str) -> tuple[int, str]:
        payload = corps(ident, numero, texte).encode()
        requete = (f"POST /api/ussd/callback HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nX-USSD-Secret: {SECRET}\r\n"
                   f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(payload)}\r\n\r\n"
                   ).encode() + payload
        if self.flux is None:
            self.flux = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.flux
        try:
            writer.write(requete)
            statut, body, fermer = await asyncio.wait_for(read_response(reader), 60)
        except BaseException:
            writer.close()
            self.flux = None
            raise
        if fermer:
            writer.close()
            self.flux = None
        return statut, body.decode(errors="replace")

    def fermer(self) -> None:
        if self.flux is not None:
            self.flux[1].close()


async def charger(liste: list[Session], appels: list[Appel]) -> tuple[Mesures, float]:
    """Every connection takes the next session as soon as its current one ends."""
    mesures = Mesures()
    file: asyncio.Queue[Session] = asyncio.Queue()
    for s in liste:
        file.put_nowait(s)

    async def connexion(appel: Appel) -> None:
        while not file.empty():
            await jouer(file.get_nowait(), appel, mesures)

    debut = time.perf_counter()
    await asyncio.gather(*(connexion(a) for a in appels))
    return mesures, time.perf_counter() - debut


def centiles(valeurs: list[float]) -> dict[str, float | int]:
    if not valeurs:
        return {"n": 0}
    ordonnees = sorted(valeurs)

    def rang(p: float) -> float:
        return round(ordonnees[min(len(ordonnees) - 1, int(p * len(ordonnees)))] * 1000, 1)

    return {"n": len(valeurs), "p50_ms": rang(0.50), "p95_ms": rang(0.95), "p99_ms": rang(0.99),
            "max_ms": round(ordonnees[-1] * 1000, 1), "moyenne_ms": round(statistics.fmean(valeurs) * 1000, 1)}


def resume(mesures: Mesures, duree: float, nombre: int, connexions: int) -> dict[str, Any]:
    toutes = mesures.toutes()
    return {"sessions": nombre, "connexions": connexions, "sessions_ok": mesures.sessions_ok,
            "reponses": len(toutes), "erreurs": mesures.erreurs, "erreurs_par_statut": mesures.par_statut,
            "exemples_erreurs": mesures.exemples,
            "duree_s": round(duree, 2), "reponses_par_s": round(len(toutes) / duree, 1) if duree else 0,
            "par_reponse": centiles(toutes), "par_genre": {k: centiles(v) for k, v in mesures.latences.items()},
            "objectif_p99_1s": bool(toutes) and centiles(toutes)["p99_ms"] < 1000 and mesures.erreurs == 0}


async def preparer(url: str, nombre: int) -> list[Recu]:
    with sans_lignes_de_requete():
        org = await semer(url, nombre, PIN)
        async with client_admin(url) as client:
            await cotisations(client, org, nombre)
            recus = await acomptes(client, url, max(1, min(200, nombre // 5)))
    await analyser(url)
    return recus


async def run(nombre: int = 1000, connexions: int = 100, workers: int | None = None) -> dict[str, Any]:
    """Against a spawned ``unionflow serve`` (``workers`` uvicorn workers, the CPU count by default)."""
    from bench.procs import start_service

    workers = workers or os.cpu_count() or 2
    async with base_neuve("ussd") as url:
        debut_preparation = time.perf_counter()
        recus = await preparer(url, nombre)
        preparation = round(time.perf_counter() - debut_preparation, 1)
        serveur = await asyncio.to_thread(start_service, "app-ussd", url, workers, {
            "UNIONFLOW_USSD_GATEWAY_SECRET": SECRET})
        try:
            liste = sessions(nombre, nombre, recus)
            random.Random(31).shuffle(liste)
            appels = [Connexion(serveur.port) for _ in range(connexions)]
            avant, cpu_avant = charge(), await cpu_mesure(url, serveur)
            mesures, duree = await charger(liste, list(appels))
            apres, cpu = charge(), cpu_depuis(cpu_avant, await cpu_mesure(url, serveur))
            for c in appels:
                c.fermer()
        finally:
            serveur.stop()
    return {"scenario": "ussd", "workers": workers, "base": "postgresql", "preparation_s": preparation,
            "recus": len(recus), "debut": avant, "fin": apres, **resume(mesures, duree, nombre, connexions),
            "cpu_ms_par_reponse": {k: round(v * 1000 / max(1, len(mesures.toutes())), 2) for k, v in cpu.items()}}


async def cpu_mesure(url: str, serveur: Any) -> dict[str, dict[int, float]]:
    """CPU seconds so far of the server's processes, of the database's backends and of this client (pid 0)."""
    import resource

    from bench.procs import cpu_par_processus

    soi = resource.getrusage(resource.RUSAGE_SELF)
    return {"serveur": cpu_par_processus([serveur.proc.pid, *serveur.workers()]),
            "postgresql": cpu_par_processus(await backends(url)), "client": {0: soi.ru_utime + soi.ru_stime}}


def cpu_depuis(avant: dict[str, dict[int, float]], apres: dict[str, dict[int, float]]) -> dict[str, float]:
    """What each side spent between the two readings; a backend opened during the run counts from zero (one
    closed during it is lost: the pool keeps its connections, so few are)."""
    return {cote: sum(s - avant[cote].get(pid, 0.0) for pid, s in apres[cote].items()) for cote in apres}


async def run_asgi(nombre: int, connexions: int, profil: bool = False) -> dict[str, Any]:
    """The same sessions through the application in process (httpx, ASGI): the test of the bench itself, and
    ``profil`` (one connection): CPU and SQL statements per answer, the PIN checked once per session, then again
    with a new session id at every step (the PIN verified at every step, as the menu does)."""
    import httpx
    from sqlalchemy import event

    from bench.procs import CLE_PIN_USSD
    from unionflow.app import create_app
    from unionflow.config import Settings

    async with base_neuve("ussd") as url:
        recus = await preparer(url, nombre)
        app = create_app(Settings(database_url=url, ussd_gateway_secret=SECRET, ussd_max_requests=10**6,
                                  ussd_pin_cle=CLE_PIN_USSD))
        compteur = [0]

        def compter(*_args: Any) -> None:
            compteur[0] += 1

        event.listen(app.state.engine.sync_engine, "before_cursor_execute", compter)
        resultat: dict[str, Any] = {"scenario": "ussd-profil" if profil else "ussd", "workers": 0,
                                    "base": "postgresql", "preparation_s": 0, "recus": len(recus), "debut": charge()}
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=60) as client:

            async def appel(ident: str, numero: str, texte: str) -> tuple[int, str]:
                response = await client.post("/api/ussd/callback", content=corps(ident, numero, texte), headers={
                    "X-USSD-Secret": SECRET, "Content-Type": "application/x-www-form-urlencoded"})
                return response.status_code, response.text

            liste = sessions(nombre, nombre, recus)
            for par_etape in (False, True) if profil else (False,):
                mesures = Mesures(compteur=compteur if profil else None)
                debut = time.perf_counter()
                for s in liste if profil else []:
                    await jouer(s, appel, mesures, par_etape)
                if not profil:
                    mesures, _ = await charger(liste, [appel] * connexions)
                duree = time.perf_counter() - debut
                cle = "pin_a_chaque_etape" if par_etape else "pin_une_fois"
                resultat[cle if profil else "mesures"] = {
                    **resume(mesures, duree, nombre, connexions),
                    "cpu_ms": {k: centiles(v) for k, v in mesures.cpu.items()},
                    "requetes_sql": {k: round(statistics.fmean(v), 1) if v else 0 for k, v in mesures.requetes.items()}}
    resultat["fin"] = charge()
    return resultat if profil else {**resultat, **resultat.pop("mesures")}


def rapport(r: dict[str, Any], stamp: str, commit: str) -> str:
    g = r["par_reponse"]
    lignes = [f"# USSD: {r['sessions']:,} sessions, {r['connexions']} gateway connections ({stamp})", "",
              f"Commit `{commit}`, `unionflow serve --workers {r['workers']}`, PostgreSQL. Load average (1, 5, 15 "
              f"min) at start {r['debut']['charge']} ({r['debut']['le']}), at end {r['fin']['charge']} "
              f"({r['fin']['le']}). Data prepared in {r['preparation_s']} s (not measured).", "",
              f"**{r['reponses']} answers in {r['duree_s']} s ({r['reponses_par_s']}/s), {r['erreurs']} error(s) "
              f"{r.get('erreurs_par_statut', {})}, "
              f"{r['sessions_ok']}/{r['sessions']} sessions complete.** Goal p99 < 1 s per answer: "
              f"{'met' if r['objectif_p99_1s'] else 'NOT met'} (p99 {g.get('p99_ms')} ms).", "",
              "| answers | n | p50 ms | p95 ms | p99 ms | max ms | mean ms |", "|---|---:|---:|---:|---:|---:|---:|"]
    quoi = {"accueil": "first screen (no PIN yet)", "pin": "the PIN typed (→ menu)",
            "ecran": "screens after the PIN (the PIN repeated in `text`)"}
    for nom, c in [("all", g)] + [(quoi[k], v) for k, v in r["par_genre"].items()]:
        if c.get("n"):
            lignes.append(f"| {nom} | {c['n']} | {c['p50_ms']} | {c['p95_ms']} | {c['p99_ms']} | {c['max_ms']} | "
                          f"{c['moyenne_ms']} |")
    if r.get("cpu_ms_par_reponse"):
        c = r["cpu_ms_par_reponse"]
        lignes += ["", f"CPU per answer, ms (user + system, the two cores are shared by all three): server "
                   f"{c['serveur']}, PostgreSQL {c['postgresql']}, this client {c['client']}; total "
                   f"{round(sum(c.values()), 2)}."]
    if r["exemples_erreurs"]:
        lignes += ["", "Errors (first ones):", ""] + [f"- `{e}`" for e in r["exemples_erreurs"]]
    return "\n".join(lignes) + "\n"


def rapport_profil(r: dict[str, Any], stamp: str) -> str:
    lignes = [f"# USSD profile: {r['pin_une_fois']['sessions']} sessions in process, one answer at a time ({stamp})",
              "", f"Commit `{r['commit']}`. Load average at start {r['debut']['charge']} ({r['debut']['le']}), at end "
              f"{r['fin']['charge']}. CPU: the whole process's (argon2's threads included), per answer.", "",
              "| PIN verified | answers | CPU ms p50 | CPU ms p95 | SQL statements (mean) | wall ms p50 |",
              "|---|---|---:|---:|---:|---:|"]
    for cle, quoi in (("pin_une_fois", "once per session"), ("pin_a_chaque_etape", "at every step")):
        m = r[cle]
        for genre_, nom in (("accueil", "first screen"), ("pin", "the PIN typed"), ("ecran", "screens after it")):
            c, w = m["cpu_ms"][genre_], m["par_genre"][genre_]
            lignes.append(f"| {quoi} | {nom} | {c.get('p50_ms')} | {c.get('p95_ms')} | "
                          f"{m['requetes_sql'][genre_]} | {w.get('p50_ms')} |")
    return "\n".join(lignes) + "\n"


def main() -> None:
    from bench.run import _commit

    parser = argparse.ArgumentParser(prog="python -m bench.ussd", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=int(os.environ.get("BENCH_USSD_SESSIONS", 1000)))
    parser.add_argument("--connexions", type=int, default=int(os.environ.get("BENCH_USSD_CONNEXIONS", 100)))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--profil", action="store_true", help="in process, one answer at a time: CPU and SQL "
                        "statements per answer, PIN once per session and at every step (bench/results/*-ussd-profil.*)")
    args = parser.parse_args()
    if args.profil:
        profil = asyncio.run(run_asgi(args.sessions, 1, profil=True)) | {"commit": _commit()}
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        ecrire(profil, "ussd-profil", rapport_profil(profil, stamp), stamp)
        print(rapport_profil(profil, stamp))
        return
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    commit = _commit()
    resultat = asyncio.run(run(args.sessions, args.connexions, args.workers)) | {"commit": commit}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    md = rapport(resultat, stamp, commit)
    ecrire(resultat, "ussd", md, stamp)
    print(md)


if __name__ == "__main__":
    main()
