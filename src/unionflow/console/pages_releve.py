"""The member's statement of account in the console, month by month (the API's ``ReleveService``): readable on a
cheap phone, one card per month."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.compte.releve import ReleveService
from unionflow.console.pages import Ctx, page
from unionflow.core.roles import RS_COMPTE_ADHERENT
from unionflow.cotisations.service import today_utc


@page("/moi/releve", RS_COMPTE_ADHERENT)
async def releve(ctx: Ctx) -> Response:
    courante = today_utc().year
    demandee = ctx.request.query_params.get("annee", "")
    annee = int(demandee) if demandee.isdigit() and 2000 <= int(demandee) <= courante else courante
    found = await ReleveService(ctx.db, ctx.auth).releve(annee, None)
    return ctx.render("releve.html", releve=found, annees=range(courante, courante - 5, -1))
