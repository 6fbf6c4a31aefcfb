"""``unionflow demo``: a small federation and a month of activity, loaded through the API of a real app instance
(in process, so every rule, receipt and book entry is the production one), for trying UnionFlow without a union.
The Wave simulator (unionflow.wave.simulateur) stands in for Wave; docs/paiements-wave.md says how to use it."""

from __future__ import annotations

import argparse
import asyncio
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from unionflow.app import create_app
from unionflow.auth import keys
from unionflow.auth.service import TokenService, create_local_user
from unionflow.config import get_settings
from unionflow.wave.simulateur import SimulateurWave, serving

DEMO_PASSWORD = "demo-unionflow"
ADMIN_EMAIL = "admin@demo.unionflow.sn"
MONTANT_COTISATION = 2000
MEMBRES_PAR_MUTUELLE = 20
PAYES_AU_GUICHET = 8
OFFICIERS = (("president", "PRESIDENT"), ("tresorier", "TRESORIER"), ("secretaire", "SECRETAIRE"),
             ("commissaire", "COMMISSAIRE_AUX_COMPTES"))
MUTUELLES = (("Mutuelle des Pêcheurs de Mbour", "mbour"), ("Mutuelle des Enseignants de Thiès", "thies"))
PRENOMS = ("Awa", "Moussa", "Fatou", "Ibrahima", "Aminata", "Cheikh", "Khady", "Ousmane", "Mariama", "Abdou")
NOMS = ("Diop", "Ndiaye", "Fall", "Sow", "Ba", "Diallo", "Sarr", "Faye", "Gueye", "Mbaye")


@dataclass
class Mutuelle:
    nom: str
    id: str
    comptes: dict[str, str] = field(default_factory=dict)  # role -> e-mail
    membres: list[str] = field(default_factory=list)
    cotisations: dict[str, str] = field(default_factory=dict)  # membre id -> cotisation id


@dataclass
class Demo:
    federation_id: str
    mutuelles: list[Mutuelle]
    membre_wave: str  # the e-mail of the member account that pays by Wave in the simulator
    cotisation_wave: str


class _Api:
    """Calls the app as a given account, failing loudly: a demo that loads half its data is worse than none."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://demo")
        self.tokens: dict[str, str] = {}

    async def compte(self, email: str, roles: list[str], prenom: str, nom: str) -> None:
        async with self.app.state.sessionmaker() as session:
            user = await create_local_user(session, email=email, password=DEMO_PASSWORD, roles=roles, prenom=prenom,
                                           nom=nom, check_password=False)
            self.tokens[email] = (await TokenService(session, self.app.state.settings).access_token(user))[0]
            await session.commit()

    async def call(self, method: str, path: str, email: str, organisation: str | None = None,
                   **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.tokens[email]}", "Idempotency-Key": str(uuid.uuid4())}
        if organisation:
            headers["X-Active-Organisation-Id"] = organisation
        answer = await self.http.request(method, path, headers=headers, **kwargs)
        if answer.status_code >= 300:
            raise RuntimeError(f"demo: {method} {path} -> {answer.status_code} {answer.text}")
        return answer.json() if answer.content else None


async def charger(app: FastAPI) -> Demo:
    """Loads the demo on the app's (migrated, empty) database and says what was made."""
    async with app.state.sessionmaker() as session:
        await keys.ensure_signing_key(session)
        await session.commit()
    api = _Api(app)
    try:
        await api.compte(ADMIN_EMAIL, ["SUPER_ADMIN", "ADMIN"], "Super", "Administrateur")
        federation = await api.call("POST", "/api/organisations", ADMIN_EMAIL, json={
            "nom": "Fédération des Mutuelles du Sénégal (démo)", "nomCourt": "FMS", "typeOrganisation": "FEDERATION"})
        mutuelles = [await _mutuelle(api, nom, slug, federation["id"]) for nom, slug in MUTUELLES]
        return Demo(federation_id=federation["id"], mutuelles=mutuelles,
                    membre_wave=mutuelles[0].comptes["MEMBRE"],
                    cotisation_wave=mutuelles[0].cotisations[mutuelles[0].membres[-1]])
    finally:
        await api.http.aclose()


async def _mutuelle(api: _Api, nom: str, slug: str, federation_id: str) -> Mutuelle:
    org = await api.call("POST", "/api/organisations", ADMIN_EMAIL, json={
        "nom": nom, "typeOrganisation": "MUTUELLE", "parentId": federation_id})
    mutuelle = Mutuelle(nom=nom, id=org["id"])
    for prefixe, role in (*OFFICIERS, ("membre", "MEMBRE")):
        email = f"{prefixe}@{slug}.demo.sn"
        await api.compte(email, ["USER"], prefixe.capitalize(), slug.capitalize())
        await api.call("POST", "/api/admin/associer-organisation", ADMIN_EMAIL,
                       json={"email": email, "organisationId": org["id"], "roles": [role]})
        mutuelle.comptes[role] = email
    secretaire, tresorier = mutuelle.comptes["SECRETAIRE"], mutuelle.comptes["TRESORIER"]
    for n in range(MEMBRES_PAR_MUTUELLE - 1):
        membre = await api.call("POST", "/api/membres", secretaire, org["id"], json={
            "prenom": PRENOMS[n % len(PRENOMS)], "nom": NOMS[(n * 3 + len(slug)) % len(NOMS)],
            "telephone": f"+22177{len(slug)}{n:06d}", "organisationId": org["id"]})
        mutuelle.membres.append(membre["id"])
    moi = await api.call("GET", "/api/membres/me", mutuelle.comptes["MEMBRE"], org["id"])
    mutuelle.membres.append(moi["id"])
    await _mois(api, mutuelle, tresorier)
    return mutuelle


async def _mois(api: _Api, mutuelle: Mutuelle, tresorier: str) -> None:
    """The month: dues for everyone, counter payments, an advance, a declaration waiting, a payout."""
    today = date.today()
    for membre_id in mutuelle.membres:
        dues = await api.call("POST", "/api/cotisations", tresorier, mutuelle.id, json={
            "membreId": membre_id, "organisationId": mutuelle.id, "typeCotisation": "MENSUELLE",
            "annee": today.year, "mois": today.month, "montantDu": str(MONTANT_COTISATION)})
        mutuelle.cotisations[membre_id] = dues["id"]
    for membre_id in mutuelle.membres[:PAYES_AU_GUICHET]:
        await _guichet(api, mutuelle, tresorier, membre_id, MONTANT_COTISATION)
    # An advance: three months at once, the rest becomes the member's credit.
    await _guichet(api, mutuelle, tresorier, mutuelle.membres[PAYES_AU_GUICHET], 3 * MONTANT_COTISATION, avance=True)
    # A member says he paid cash to the treasurer: nothing is money until the treasurer confirms it.
    declarant = mutuelle.comptes["SECRETAIRE"]
    secretaire_id = (await api.call("GET", "/api/membres/me", declarant, mutuelle.id))["id"]
    dues = await api.call("POST", "/api/cotisations", tresorier, mutuelle.id, json={
        "membreId": secretaire_id, "organisationId": mutuelle.id, "typeCotisation": "MENSUELLE",
        "annee": today.year, "mois": today.month, "montantDu": str(MONTANT_COTISATION)})
    await api.call("PUT", f"/api/cotisations/{dues['id']}/payer", declarant, mutuelle.id, json={
        "montant": str(MONTANT_COTISATION), "methodePaiement": "ESPECES", "referencePaiement": "CAISSE-DEMO"})
    # A payout of collected dues to the federation's account, confirmed by a second person (the president).
    versement = await api.call("POST", "/api/versements", tresorier, mutuelle.id, json={
        "organisationId": mutuelle.id, "montant": str(MONTANT_COTISATION), "mode": "MANUEL",
        "objetType": "COTISATIONS", "motif": "Reversement de cotisations (démo)",
        "beneficiaireNom": "Fédération des Mutuelles du Sénégal"})
    await api.call("POST", f"/api/versements/{versement['id']}/confirmer", mutuelle.comptes["PRESIDENT"],
                   mutuelle.id, json={"referenceExterne": "VIR-DEMO-1"})


async def _guichet(api: _Api, mutuelle: Mutuelle, tresorier: str, membre_id: str, montant: int,
                   avance: bool = False) -> None:
    await api.call("POST", "/api/paiements", tresorier, mutuelle.id, json={
        "membreId": membre_id, "organisationId": mutuelle.id, "montant": str(montant), "methode": "ESPECES",
        "cibles": [{"cotisationId": mutuelle.cotisations[membre_id]}], "avance": avance})


def a_essayer(demo: Demo, url: str, wave_url: str) -> str:
    """The French « what to try » list printed after loading."""
    lignes = [f"Démo UnionFlow prête: {url}/console (mot de passe de tous les comptes: {DEMO_PASSWORD})",
              f"  Super administrateur: {ADMIN_EMAIL}"]
    for mutuelle in demo.mutuelles:
        lignes.append(f"  {mutuelle.nom}:")
        lignes += [f"    {role.lower().replace('_', ' ')}: {email}" for role, email in mutuelle.comptes.items()]
    lignes += [
        "À essayer:",
        f"  1. Connectez-vous comme {demo.membre_wave}, « Mes cotisations », payez par Wave:",
        f"     la page du simulateur ({wave_url}/c/<session>) propose « Payer » ou « Faire échouer »;",
        "     le webhook signé crédite alors la cotisation.",
        "  2. Comme trésorier: le guichet, la déclaration en attente à confirmer, l'avoir créé par l'avance,",
        "     le relevé Wave (lu sur le simulateur), la clôture du mois.",
        "  3. Comme président: ce qui attend une seconde personne; comme commissaire aux comptes: les livres.",
    ]
    return "\n".join(lignes)


def lancer(args: argparse.Namespace, migrate: Callable[[argparse.Namespace], int],
           serve: Callable[[argparse.Namespace], int]) -> int:
    """``unionflow demo``: a fresh demo database (never the configured one unless --database-url names it), the
    Wave simulator on loopback as Wave, the demo loaded through the app, then ``serve``."""
    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    database_url = args.database_url
    if database_url is None:
        (data_dir / "demo.db").unlink(missing_ok=True)  # each run starts from the same month
        database_url = f"sqlite:///{data_dir / 'demo.db'}"
    secret = "demo-secret-webhook"
    simulateur = SimulateurWave(api_key="demo-cle-wave", webhook_secret=secret,
                                webhook_url=f"http://{args.host}:{args.port}/api/paiements/wave/webhook")
    console = f"http://{args.host}:{args.port}/console"
    with serving(simulateur, port=args.wave_port):
        simulateur.launch_base = simulateur.url
        os.environ.update({
            "UNIONFLOW_DATABASE_URL": database_url, "UNIONFLOW_DATA_DIR": str(data_dir),
            "UNIONFLOW_WAVE_API_BASE_URL": simulateur.url, "UNIONFLOW_WAVE_API_KEY": simulateur.api_key,
            "UNIONFLOW_WAVE_WEBHOOK_SECRET": secret, "UNIONFLOW_WAVE_LAUNCH_ORIGIN": simulateur.url,
            "UNIONFLOW_WAVE_SUCCESS_URL": f"{console}/moi", "UNIONFLOW_WAVE_ERROR_URL": f"{console}/moi",
            "UNIONFLOW_BOOTSTRAP_ADMIN_PASSWORD": DEMO_PASSWORD})
        # The accounts' member records name the built-in issuer, which is the address served: known before loading.
        os.environ.setdefault("UNIONFLOW_PUBLIC_BASE_URL", f"http://{args.host}:{args.port}")
        get_settings.cache_clear()
        migrate(args)

        async def load() -> str:
            app = create_app(get_settings())
            try:
                demo = await charger(app)
            finally:
                await app.state.engine.dispose()
                await app.state.principal_engine.dispose()
            return a_essayer(demo, f"http://{args.host}:{args.port}", simulateur.url)

        print(asyncio.run(load()), flush=True)
        args.workers, args.log_level, args.no_access_log, args.no_migrate = 1, None, True, True
        args.proxy_headers, args.forwarded_allow_ips = False, None
        return serve(args)
