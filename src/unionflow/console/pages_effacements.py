"""An erasure request (Loi 2008-12) in the console: the president or the organisation's administrator reads it
and approves or rejects it, with the rules of ``donnees_membre/effacement_service.py`` (never the requester)."""

from __future__ import annotations

import uuid

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput
from unionflow.core.roles import RS_DONNEES_DECIDE
from unionflow.donnees_membre.effacement_service import EffacementService
from unionflow.models.approbation import TypeDecision


def _service(ctx: Ctx) -> EffacementService:
    return EffacementService(ctx.db, ctx.auth, ctx.request.app.state.settings.issuer)


@page("/effacements/{id}", RS_DONNEES_DECIDE)
async def effacement(ctx: Ctx) -> Response:
    demande = await _service(ctx).obtenir(parse_id(ctx.request.path_params["id"]))
    return ctx.render("effacement.html", demande=demande, saisi=ctx.saisi("commentaire"))


@page("/effacements/{id}/{decision:str}", RS_DONNEES_DECIDE, methods=("POST",), again=effacement)
async def decider(ctx: Ctx) -> Response:
    demande_id, decision, commentaire = lire_decision(ctx)
    await _service(ctx).decider(demande_id, decision, commentaire)
    return redirect(f"/effacements/{demande_id}")


def lire_decision(ctx: Ctx) -> tuple[uuid.UUID, TypeDecision, str | None]:
    """A data-rights request's decision as its form posts it (erasure, opposition: ``_decision_donnees.html``): the
    request, approve or reject, and the comment a rejection must carry (the answer given to the member)."""
    decision = ctx.request.path_params["decision"]
    if decision not in ("approuver", "rejeter"):
        raise InvalidInput("Décision inconnue")
    commentaire = ctx.field("commentaire") or None
    if decision == "rejeter" and not commentaire:
        raise InvalidInput("commentaire: obligatoire pour un rejet (c'est la réponse donnée au membre)")
    return (parse_id(ctx.request.path_params["id"]),
            TypeDecision.APPROUVEE if decision == "approuver" else TypeDecision.REJETEE, commentaire)
