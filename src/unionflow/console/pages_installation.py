"""Setting an organisation up in the console: its treasuries (cash boxes, bank with overdraft, Wave/Orange/Free
accounts) and their opening balances, its Wave account, its settings and its dues scale. Each form builds the body
of the API's route and calls the route's own service or operation (``POST /api/tresoreries``,
``POST /api/tresoreries/a-nouveaux`` under the form's Idempotency-Key, ``POST /api/wave/comptes``,
``PUT /api/configuration/organisations/{id}/{cle}``); role sets are the API's (RS-TRESORERIE to write,
RS-TRESORERIE-READ to read). The organisation is named in the path: an administrator sets up several.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import Response

from unionflow.comptabilite.ecritures.tresorerie import compte_standard_organisation
from unionflow.configuration.organisation_service import ConfigurationOrganisationService
from unionflow.configuration.schemas import UpdateConfigurationOrganisationRequest
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.errors import InvalidInput, NotFound
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.models import Organisation
from unionflow.organisations.repository import OrganisationRepository
from unionflow.tresoreries import operations
from unionflow.tresoreries.ouverture_service import ANouveauxService
from unionflow.tresoreries.schemas import CreateANouveauxRequest, CreateTresorerieRequest
from unionflow.tresoreries.service import NOMS, TresorerieService
from unionflow.wave.schemas import CreateCompteWaveRequest
from unionflow.wave.service import CompteWaveService

CHAMPS_TRESORERIE = ("type", "nom", "numero_compte", "decouvert", "par_defaut")
# Balance-sheet accounts beside the treasuries on the opening balances form (more through the API's body).
LIGNES_COMPTES = 3
BAREME = "cotisations.bareme."
LIBELLES = {"cotisations.avoir.imputation_automatique": "Imputer automatiquement l'avoir des membres sur leurs "
                                                        "cotisations échues (les plus anciennes d'abord)"}


async def _organisation(ctx: Ctx) -> Organisation:
    found = await OrganisationRepository(ctx.db, ctx.auth).get(parse_id(ctx.request.path_params["id"]))
    if found is None:
        raise NotFound("Organisation introuvable")
    return found


def nombre(value: str) -> str:
    """An amount as typed (« 2 500 », « 2500,50 ») in the API's notation; the schema then says if it is one."""
    return value.replace("\u202f", "").replace("\u00a0", "").replace(" ", "").replace(",", ".")


@page("/organisations/{id}/tresoreries", RS_TRESORERIE_READ)
async def tresoreries(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    found = await TresorerieService(ctx.db, ctx.auth).lister(org.id)
    demandes = await ANouveauxService(ctx.db, ctx.auth).lister(org.id)
    gerer = RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.TRESORERIE_GERER, org.id)
    saisi = {name: ctx.typed(name) for name in (*CHAMPS_TRESORERIE, "date_debut", "motif")}
    soldes = {str(t.id): ctx.typed(f"solde_{t.id}") for t in found}
    comptes = [{c: ctx.typed(f"{c}_{i}") for c in ("compte", "montant")} for i in range(LIGNES_COMPTES)]
    # Each type with the account its money is on until a treasury of it is declared (5521 for Wave, or a former
    # 5215 where the organisation's books already hold it).
    types = {code: (nom, await compte_standard_organisation(ctx.db, org.id, code)) for code, nom in NOMS.items()}
    return ctx.render("installation_tresoreries.html", organisation=org, tresoreries=found, demandes=demandes[:5],
                      types=types, gerer=gerer, saisi=saisi, soldes=soldes, comptes=comptes,
                      en_cours=any(d.statut in ("EN_ATTENTE", "APPROUVEE") for d in demandes),
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()), fait=ctx.request.query_params.get("fait"))


@page("/organisations/{id}/tresoreries", RS_TRESORERIE, methods=("POST",), again=tresoreries)
async def declarer(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    data = CreateTresorerieRequest.model_validate(corps(
        organisationId=str(org.id), type=ctx.field("type"), nom=ctx.field("nom"),
        numeroCompte=ctx.field("numero_compte"), decouvertAutorise=nombre(ctx.field("decouvert")),
        parDefaut=ctx.field("par_defaut") == "oui"))
    await TresorerieService(ctx.db, ctx.auth).creer(data)
    return redirect(f"/organisations/{org.id}/tresoreries?fait=declaree")


@page("/organisations/{id}/a-nouveaux", RS_TRESORERIE, methods=("POST",), again=tresoreries)
async def a_nouveaux(ctx: Ctx) -> Response:
    """The opening balances asked for; a second person approves them on « À approuver »."""
    org = await _organisation(ctx)
    lignes = [corps(tresorerieId=str(t.id), montant=nombre(ctx.field(f"solde_{t.id}")))
              for t in await TresorerieService(ctx.db, ctx.auth).lister(org.id) if ctx.field(f"solde_{t.id}")]
    comptes = [corps(numeroCompte=ctx.field(f"compte_{i}"), montant=nombre(ctx.field(f"montant_{i}")))
               for i in range(LIGNES_COMPTES) if ctx.field(f"compte_{i}") or ctx.field(f"montant_{i}")]
    if not lignes and not comptes:
        raise InvalidInput("Saisissez le solde d'au moins une trésorerie")
    body = corps(organisationId=str(org.id), dateDebut=ctx.field("date_debut"), tresoreries=lignes,
                 comptes=comptes, motif=ctx.field("motif"))
    data = CreateANouveauxRequest.model_validate(body)
    idem = IdempotentRequest.for_form(ctx.db, operations.OPERATION_A_NOUVEAUX, ctx.field("idempotency_key"), body)
    await operations.saisir_a_nouveaux(ctx.db, ctx.auth, idem, data)
    return redirect(f"/organisations/{org.id}/tresoreries?fait=a-nouveaux")


@page("/organisations/{id}/wave", RS_TRESORERIE_READ)
async def wave(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    comptes = await CompteWaveService(ctx.db, ctx.auth).lister(org.id)
    return ctx.render("installation_wave.html", organisation=org, comptes=comptes,
                      gerer=RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.WAVE_COMPTE_GERER, org.id),
                      saisi={n: ctx.typed(n) for n in ("libelle", "numero_telephone")},
                      fait=ctx.request.query_params.get("fait"))


@page("/organisations/{id}/wave", RS_TRESORERIE, methods=("POST",), again=wave)
async def wave_post(ctx: Ctx) -> Response:
    """Key and webhook secret are sent once and never shown again (only their last characters, masked)."""
    org = await _organisation(ctx)
    data = CreateCompteWaveRequest.model_validate(corps(
        organisationId=str(org.id), libelle=ctx.field("libelle"),
        numeroTelephone=ctx.field("numero_telephone").replace(" ", ""), cleApi=ctx.field("cle_api"),
        secretWebhook=ctx.field("secret_webhook")))
    await CompteWaveService(ctx.db, ctx.auth).creer(data)
    return redirect(f"/organisations/{org.id}/wave?fait=enregistre")


async def _reglages(ctx: Ctx, bareme: bool) -> Response:
    org = await _organisation(ctx)
    found = [r for r in await ConfigurationOrganisationService(ctx.db, ctx.auth).lister(org.id)
             if r.cle.startswith(BAREME) == bareme]
    valeurs = {r.cle: ctx.typed(_champ(r.cle), _affiche(r.valeur)) for r in found}
    return ctx.render("installation_parametres.html", organisation=org, reglages=found, valeurs=valeurs,
                      bareme=bareme, champ=_champ, libelles=LIBELLES, fait=ctx.request.query_params.get("fait"),
                      gerer=RS_TRESORERIE.allows(ctx.auth.roles)
                      and ctx.can(Permission.CONFIGURATION_ORGANISATION_GERER, org.id))


def _champ(cle: str) -> str:
    return cle.replace(".", "_")


def _affiche(valeur: Any) -> str:
    if isinstance(valeur, bool):
        return "oui" if valeur else "non"
    return str(valeur).removesuffix(".00") if valeur is not None else ""


async def _regler(ctx: Ctx, bareme: bool) -> Response:
    """Each setting of the form whose value changed, through the API's service (validated against its type)."""
    org = await _organisation(ctx)
    service = ConfigurationOrganisationService(ctx.db, ctx.auth)
    for reglage in await service.lister(org.id):
        if reglage.cle.startswith(BAREME) != bareme:
            continue
        typed = ctx.field(_champ(reglage.cle))
        valeur: Any = typed == "oui" if reglage.type == "BOOLEAN" else nombre(typed) or "0"
        if typed and _affiche(valeur) != _affiche(reglage.valeur):
            data = UpdateConfigurationOrganisationRequest.model_validate({"valeur": valeur})
            await service.definir(org.id, reglage.cle, data)
    return redirect(f"/organisations/{org.id}/{'cotisations' if bareme else 'parametres'}?fait=enregistre")


@page("/organisations/{id}/parametres", RS_TRESORERIE)
async def parametres(ctx: Ctx) -> Response:
    return await _reglages(ctx, bareme=False)


@page("/organisations/{id}/parametres", RS_TRESORERIE, methods=("POST",), again=parametres)
async def parametres_post(ctx: Ctx) -> Response:
    return await _regler(ctx, bareme=False)


@page("/organisations/{id}/cotisations", RS_TRESORERIE)
async def cotisations(ctx: Ctx) -> Response:
    """The dues scale: the amount per member of each periodic dues type, offered by the generation form."""
    return await _reglages(ctx, bareme=True)


@page("/organisations/{id}/cotisations", RS_TRESORERIE, methods=("POST",), again=cotisations)
async def cotisations_post(ctx: Ctx) -> Response:
    return await _regler(ctx, bareme=True)
