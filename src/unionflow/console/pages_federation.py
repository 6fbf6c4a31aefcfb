"""The federation's bureau: the consolidated table of its network and its consolidated statements
(docs/federation.md). Role set RS-FINANCE-READ, as the API's routes; the organisation is the active one
(the root of the perimeter); the service answers 403 to a mutual's bureau asking for its federation."""

from __future__ import annotations

from datetime import date

from starlette.responses import Response

from unionflow.console.pages import Ctx, page
from unionflow.console.pages_comptabilite import parse_date
from unionflow.core.errors import NotFound
from unionflow.core.roles import RS_FINANCE_READ
from unionflow.federation import pdf
from unionflow.federation.service import FederationService


def _periode(ctx: Ctx) -> tuple[date | None, date | None]:
    query = ctx.request.query_params
    return parse_date(query.get("debut", ""), "Du"), parse_date(query.get("fin", ""), "Au")


@page("/federation", RS_FINANCE_READ)
async def federation(ctx: Ctx) -> Response:
    debut, fin = _periode(ctx)
    service = FederationService(ctx.db, ctx.auth)
    chiffres = await service.consolidation(ctx.organisation(), debut, fin)
    etats = await service.etats(ctx.organisation(), debut, fin)
    return ctx.render("federation.html", c=chiffres, e=etats, debut=chiffres.date_debut.isoformat(),
                      fin=chiffres.date_fin.isoformat())


@page("/federation/etats", RS_FINANCE_READ)
async def etats_consolides(ctx: Ctx) -> Response:
    fmt = ctx.request.query_params.get("format", "pdf")
    if fmt not in ("pdf", "xlsx"):
        raise NotFound("État introuvable")
    debut, fin = _periode(ctx)
    etat = await FederationService(ctx.db, ctx.auth).etats(ctx.organisation(), debut, fin)
    content, media, filename = pdf.rendre(etat, fmt, ctx.auth.actor_name)
    return Response(content, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{filename}"',
        "Cache-Control": "no-store"})
