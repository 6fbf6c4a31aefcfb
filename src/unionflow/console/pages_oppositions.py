"""An opposition request (Loi 2008-12) in the console: the president, the organisation's administrator or
its data-protection officer reads it and approves or rejects it, with the rules of
``donnees_membre/opposition_service.py`` (never the requester nor the member concerned)."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_effacements import lire_decision
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.roles import RS_DONNEES_DECIDE
from unionflow.donnees_membre.opposition_service import OppositionService


@page("/oppositions/{id}", RS_DONNEES_DECIDE)
async def opposition(ctx: Ctx) -> Response:
    demande = await OppositionService(ctx.db, ctx.auth).obtenir(parse_id(ctx.request.path_params["id"]))
    return ctx.render("opposition.html", demande=demande, saisi=ctx.saisi("commentaire"))


@page("/oppositions/{id}/{decision:str}", RS_DONNEES_DECIDE, methods=("POST",), again=opposition)
async def decider(ctx: Ctx) -> Response:
    demande_id, decision, commentaire = lire_decision(ctx)
    await OppositionService(ctx.db, ctx.auth).decider(demande_id, decision, commentaire)
    return redirect(f"/oppositions/{demande_id}")
