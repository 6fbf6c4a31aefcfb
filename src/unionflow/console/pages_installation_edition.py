"""Changing what set-up declared: a treasury renamed, its overdraft or default changed, deactivated (its balance
must be nil: the service says so) or reactivated; the organisation's Wave account renamed, its number or secrets
changed, deactivated or reactivated. Each row of the set-up pages has its forms; each calls the API route's own
service (``PUT /api/tresoreries/{id}``, ``PUT /api/wave/comptes/{id}``) with the body the route would receive, and
a refusal comes back beside the row's field (``Ctx.raison(…, ligne=…)``). A deactivated treasury is no longer
offered by the payment and payout forms (they list the active ones).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_installation import _organisation, nombre, tresoreries, wave
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.roles import RS_TRESORERIE
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.models.wave import StatutCompteWave
from unionflow.tresoreries.schemas import TresorerieResponse, UpdateTresorerieRequest
from unionflow.tresoreries.service import TresorerieService
from unionflow.wave.schemas import CompteWaveResponse, UpdateCompteWaveRequest
from unionflow.wave.service import CompteWaveService

ACTIONS = ("modifier", "desactiver", "reactiver")


def _action(ctx: Ctx) -> str:
    action = str(ctx.request.path_params["action"])
    if action not in ACTIONS:
        raise NotFound("Page introuvable")
    return action


class _Lignes(Protocol):
    """The service of a set-up row (``TresorerieService``, ``CompteWaveService``): the API route's own."""

    async def obtenir(self, id: uuid.UUID, /) -> Any: ...

    async def modifier(self, id: uuid.UUID, data: Any, /) -> Any: ...


async def _modifier(ctx: Ctx, service: Callable[[AsyncSession, AuthContext], _Lignes], cle: str, introuvable: str,
                    requete: type[BaseModel], corps_de: Callable[[Ctx, str, Any], dict[str, Any]],
                    liste: str) -> Response:
    """One POST of a row's forms: the row of the organisation (else 404 ``introuvable``) changed by its service
    with the body the route would receive (``corps_de(ctx, action, row)``), then back to the organisation's
    ``liste`` page saying what was done."""
    org = await _organisation(ctx)
    action = _action(ctx)
    lignes = service(ctx.db, ctx.auth)
    found = await lignes.obtenir(parse_id(ctx.request.path_params[cle]))
    if found.organisation_id != org.id:
        raise NotFound(introuvable)
    await lignes.modifier(found.id, requete.model_validate(corps_de(ctx, action, found)))
    return redirect(f"/organisations/{org.id}/{liste}?fait={action}")


def _corps_tresorerie(ctx: Ctx, action: str, found: TresorerieResponse) -> dict[str, Any]:
    if action != "modifier":
        return {"actif": action == "reactiver"}
    body = corps(nom=ctx.field("nom"), parDefaut=ctx.field("par_defaut") == "oui")
    if found.type == TypeTresorerie.BANQUE:
        body["decouvertAutorise"] = nombre(ctx.field("decouvert")) or "0"
    return body


@page("/organisations/{id}/tresoreries/{tid}/{action:str}", RS_TRESORERIE, methods=("POST",), again=tresoreries)
async def tresorerie_post(ctx: Ctx) -> Response:
    return await _modifier(ctx, TresorerieService, "tid", "Trésorerie introuvable", UpdateTresorerieRequest,
                           _corps_tresorerie, "tresoreries")


def _corps_wave(ctx: Ctx, action: str, _found: CompteWaveResponse) -> dict[str, Any]:
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
    return await _modifier(ctx, CompteWaveService, "cid", "Compte Wave introuvable", UpdateCompteWaveRequest,
                           _corps_wave, "wave")
