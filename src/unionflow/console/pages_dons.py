"""The register of donations and bequests in the console: the lines of a period, the seal's check, and the
register to print (PDF to sign by the president, XLSX). Read by the treasury, the president and the external
auditor (``RS_TRESORERIE_READ``, as ``GET /api/comptabilite/registre-dons``)."""

from __future__ import annotations

import uuid
from datetime import date

from starlette.responses import Response

from unionflow.console.pages import Ctx, page
from unionflow.console.pages_comptabilite import parse_date
from unionflow.core import tableaux
from unionflow.core.errors import InvalidInput, NotFound
from unionflow.core.roles import RS_TRESORERIE_READ
from unionflow.dons import tableau
from unionflow.dons.schemas import RegistreDonsResponse
from unionflow.dons.service import RegistreDonService

# One row (~300 bytes) per donation: 100 rows keep the page under 30 KB; the PDF carries the whole period.
LIGNES = 100


def _organisation(ctx: Ctx) -> uuid.UUID:
    if ctx.auth.active_organisation_id is None:
        raise InvalidInput("Choisissez d'abord une organisation")
    return ctx.auth.active_organisation_id


async def _registre(ctx: Ctx) -> RegistreDonsResponse:
    query = ctx.request.query_params
    today = date.today()
    debut = parse_date(query.get("debut", ""), "Du") or date(today.year, 1, 1)
    fin = parse_date(query.get("fin", ""), "Au") or today
    return await RegistreDonService(ctx.db, ctx.auth).registre(_organisation(ctx), debut, fin)


@page("/registre-dons", RS_TRESORERIE_READ)
async def registre(ctx: Ctx) -> Response:
    r = await _registre(ctx)
    verification = await RegistreDonService(ctx.db, ctx.auth).verifier(r.organisation_id)
    return ctx.render("registre_dons.html", registre=r, lignes=r.lignes[:LIGNES], tronque=len(r.lignes) > LIGNES,
                      verification=verification)


@page("/registre-dons/fichier", RS_TRESORERIE_READ)
async def fichier(ctx: Ctx) -> Response:
    fmt = ctx.request.query_params.get("format", "pdf")
    if fmt not in ("pdf", "xlsx"):
        raise NotFound("Format introuvable")
    r = await _registre(ctx)
    table = tableau.registre(r)
    table.edite_par = ctx.auth.actor_name
    content, media = ((tableaux.pdf(table), "application/pdf") if fmt == "pdf"
                      else (tableaux.xlsx(table), tableaux.XLSX_MEDIA_TYPE))
    return Response(content, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="registre-dons-{r.debut}-{r.fin}.{fmt}"',
        "Cache-Control": "no-store"})
