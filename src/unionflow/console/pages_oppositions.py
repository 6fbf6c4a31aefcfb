"""An opposition request (Loi 2008-12, art. 68) in the console: the president, the organisation's administrator or
its data-protection officer reads it and approves or rejects it, with the rules of
``donnees_membre/opposition_service.py`` (never the requester nor the member concerned)."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput
from unionflow.core.roles import RS_DONNEES_DECIDE
from unionflow.donnees_membre.opposition_service import OppositionService
from unionflow.models.approbation import TypeDecision


@page("/oppositions/{id}", RS_DONNEES_DECIDE)
async def opposition(ctx: Ctx) -> Response:
    demande = await OppositionService(ctx.db, ctx.auth).obtenir(parse_id(ctx.request.path_params["id"]))
    return ctx.render("opposition.html", demande=demande, saisi=ctx.saisi("commentaire"))


@page("/oppositions/{id}/{decision:str}", RS_DONNEES_DECIDE, methods=("POST",), again=opposition)
async def decider(ctx: Ctx) -> Response:
    demande_id = parse_id(ctx.request.path_params["id"])
    decision = ctx.request.path_params["decision"]
    if decision not in ("approuver", "rejeter"):
        raise InvalidInput("Décision inconnue")
    commentaire = ctx.field("commentaire") or None
    if decision == "rejeter" and not commentaire:
        raise InvalidInput("commentaire: obligatoire pour un rejet (c'est la réponse donnée au membre)")
    await OppositionService(ctx.db, ctx.auth).decider(
        demande_id, TypeDecision.APPROUVEE if decision == "approuver" else TypeDecision.REJETEE, commentaire)
    return redirect(f"/oppositions/{demande_id}")
