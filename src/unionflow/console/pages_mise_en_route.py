"""« Mise en route »: the guided first run of a union, each step a link to its normal screen, what is done and
what is left computed from the database (console/mise_en_route.py). Role set RS-ORG-ADMIN: the union's
administrator sees every organisation, an organisation's administrator the ones he administers."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console.mise_en_route import avancement
from unionflow.console.pages import Ctx, page
from unionflow.core.roles import RS_ORG_ADMIN


@page("/mise-en-route", RS_ORG_ADMIN)
async def mise_en_route(ctx: Ctx) -> Response:
    etat = await avancement(ctx.db, ctx.auth)
    return ctx.render("mise_en_route.html", etat=etat, prochaine=next(iter(etat.restantes), None))
