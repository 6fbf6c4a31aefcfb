"""The secretary adds or edits one member in the console (no CSV needed for one person).

The API's operations (``MembreService.creer`` / ``modifier``, route set RS-MEMBRE-WRITE, the schema's French 400 and
the 409 of an e-mail already used). Before a new member is saved, people whose names match without accents or case
(the API's search, « Élodie » finds « elodie ») are listed and the secretary confirms it is someone else: the
duplicates a shared PC and several secretaries create are caught before they exist.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.pagination import PageParams
from unionflow.core.roles import RS_MEMBRE_WRITE
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.membres.repository import MembreFilters
from unionflow.membres.schemas import CreateMembreRequest, StatutRequest, UpdateMembreRequest
from unionflow.membres.service import MembreService

CHAMPS = ("prenom", "nom", "telephone", "email", "date_naissance", "genre", "profession", "adresse", "ville")
# Form field → the API body's name.
API = {"prenom": "prenom", "nom": "nom", "telephone": "telephone", "email": "email",
       "date_naissance": "dateNaissance", "genre": "genre", "profession": "profession", "adresse": "adresse",
       "ville": "ville"}


def _valeurs(ctx: Ctx, membre: Any = None) -> dict[str, str]:
    if ctx.erreur is not None or membre is None:
        return {c: ctx.typed(c) for c in CHAMPS}
    return {c: "" if getattr(membre, c) is None else str(getattr(membre, c)) for c in CHAMPS}


def _formulaire(ctx: Ctx, proches: list[Any]) -> Response:
    ctx.organisation()  # the organisation the member is registered in
    return ctx.render("fiche_membre.html", valeurs=_valeurs(ctx), membre=None, proches=proches,
                      action="/nouveau-membre")


@page("/nouveau-membre", RS_MEMBRE_WRITE)
async def nouveau(ctx: Ctx) -> Response:
    return _formulaire(ctx, [])


@page("/nouveau-membre", RS_MEMBRE_WRITE, methods=("POST",), again=nouveau)
async def nouveau_post(ctx: Ctx) -> Response:
    body = corps(**{API[c]: ctx.field(c) for c in CHAMPS}, organisationId=str(ctx.auth.active_organisation_id))
    data = CreateMembreRequest.model_validate(body)
    service = MembreService(ctx.db, ctx.auth)
    if ctx.field("confirmer") != "1":
        found = await service.lister(MembreFilters(q=f"{data.prenom} {data.nom}"), PageParams(0, 10))
        if found.content:
            ctx.erreur = ("Des personnes au nom proche sont déjà inscrites: vérifiez qu'il ne s'agit pas de l'une "
                          "d'elles, puis confirmez")
            return _formulaire(ctx, list(found.content))
    membre = await service.creer(data)
    return redirect(f"/membres/{membre.id}?fait=inscrit")


@page("/membres/{id}/modifier", RS_MEMBRE_WRITE)
async def modifier(ctx: Ctx) -> Response:
    membre = await MembreService(ctx.db, ctx.auth).obtenir(parse_id(ctx.request.path_params["id"]))
    return ctx.render("fiche_membre.html", valeurs=_valeurs(ctx, membre), membre=membre, proches=[],
                      action=f"/membres/{membre.id}/modifier")


@page("/membres/{id}/modifier", RS_MEMBRE_WRITE, methods=("POST",), again=modifier)
async def modifier_post(ctx: Ctx) -> Response:
    membre_id: uuid.UUID = parse_id(ctx.request.path_params["id"])
    # An emptied optional field clears it (null), as the API's partial update does; names are required.
    body: dict[str, Any] = {API[c]: ctx.field(c) or None for c in CHAMPS}
    data = UpdateMembreRequest.model_validate(body)
    await MembreService(ctx.db, ctx.auth).modifier(membre_id, data)
    return redirect(f"/membres/{membre_id}?fait=modifie")


# Suspend, lift, end: the API's POST /api/membres/{id}/statut (memberships follow: suspended with the member,
# restored when lifted, ended by a radiation) and POST /api/membres/{id}/organisations/{organisationId}/terminer.
@page("/membres/{id}/statut", RS_MEMBRE_WRITE, methods=("POST",), again="/membres/{id}")
async def changer_statut(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    data = StatutRequest.model_validate(corps(statut=ctx.field("statut"), motif=ctx.field("motif")))
    await MembreService(ctx.db, ctx.auth).changer_statut(membre_id, data)
    return redirect(f"/membres/{membre_id}?fait=statut")


@page("/membres/{id}/organisations/{organisation}/terminer", RS_MEMBRE_WRITE, methods=("POST",),
      again="/membres/{id}")
async def terminer_appartenance(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    organisation_id = parse_id(ctx.request.path_params["organisation"])
    await AppartenanceService(ctx.db, ctx.auth).terminer(membre_id, organisation_id, ctx.field("motif") or None)
    return redirect(f"/membres/{membre_id}?fait=termine")
