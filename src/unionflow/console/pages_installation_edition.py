"""Changing what set-up declared: a treasury renamed, its overdraft or default changed, deactivated (its balance
must be nil: the service says so) or reactivated; the organisation's Wave account renamed, its number or secrets
changed, deactivated or reactivated. Each row of the set-up pages has its forms; each calls the API route's own
service (``PUT /api/tresoreries/{id}``, ``PUT /api/wave/comptes/{id}``) with the body the route would receive, and
a refusal comes back beside the row's field (``Ctx.raison(…, ligne=…)``). A deactivated treasury is no longer
offered by the payment and payout forms (they list the active ones).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_installation import _organisation, nombre, tresoreries, wave
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.errors import NotFound
from unionflow.core.roles import RS_TRESORERIE
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.models.wave import StatutCompteWave
from unionflow.tresoreries.schemas import UpdateTresorerieRequest
from unionflow.tresoreries.service import TresorerieService
from unionflow.wave.schemas import UpdateCompteWaveRequest
from unionflow.wave.service import CompteWaveService

ACTIONS = ("modifier", "desactiver", "reactiver")


def _action(ctx: Ctx) -> str:
    action = str(ctx.request.path_params["action"])
    if action not in ACTIONS:
        raise NotFound("Page introuvable")
    return action


def _corps_tresorerie(ctx: Ctx, action: str, banque: bool) -> dict[str, Any]:
    if action != "modifier":
        return {"actif": action == "reactiver"}
    body = corps(nom=ctx.field("nom"), parDefaut=ctx.field("par_defaut") == "oui")
    if banque:
        body["decouvertAutorise"] = nombre(ctx.field("decouvert")) or "0"
    return body


@page("/organisations/{id}/tresoreries/{tid}/{action:str}", RS_TRESORERIE, methods=("POST",), again=tresoreries)
async def tresorerie_post(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    action = _action(ctx)
    service = TresorerieService(ctx.db, ctx.auth)
    found = await service.obtenir(parse_id(ctx.request.path_params["tid"]))
    if found.organisation_id != org.id:
        raise NotFound("Trésorerie introuvable")
    data = UpdateTresorerieRequest.model_validate(_corps_tresorerie(ctx, action, found.type == TypeTresorerie.BANQUE))
    await service.modifier(found.id, data)
    return redirect(f"/organisations/{org.id}/tresoreries?fait={action}")


def _corps_wave(ctx: Ctx, action: str) -> dict[str, Any]:
    if action != "modifier":
        return {"statut": StatutCompteWave.ACTIF if action == "reactiver" else StatutCompteWave.INACTIF}
    body = corps(libelle=ctx.field("libelle"), numeroTelephone=ctx.field("numero_telephone").replace(" ", ""))
    # A secret left empty is kept (it is never shown, so the form cannot hold it): only a new one replaces it.
    for champ, nom in (("cle_api", "cleApi"), ("secret_webhook", "secretWebhook")):
        if ctx.field(champ):
            body[nom] = ctx.field(champ)
    return body


@page("/organisations/{id}/wave/{cid}/{action:str}", RS_TRESORERIE, methods=("POST",), again=wave)
async def wave_compte_post(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    action = _action(ctx)
    service = CompteWaveService(ctx.db, ctx.auth)
    found = await service.obtenir(parse_id(ctx.request.path_params["cid"]))
    if found.organisation_id != org.id:
        raise NotFound("Compte Wave introuvable")
    await service.modifier(found.id, UpdateCompteWaveRequest.model_validate(_corps_wave(ctx, action)))
    return redirect(f"/organisations/{org.id}/wave?fait={action}")
