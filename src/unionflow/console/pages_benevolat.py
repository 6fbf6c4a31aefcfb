"""The register of volunteer time in the console: the period's lines and totals, read by the bureau and the
external auditor (``RS_MEMBRE_READ``, as ``GET /api/comptabilite/benevolat``); a line recorded from the member's
page and cancelled from the register by the bureau (``RS_BUREAU``), through the API's own service (permission,
rules, audit) under the API route's idempotency scope."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_comptabilite import parse_date
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import schema_error
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_BUREAU, RS_MEMBRE_READ
from unionflow.dons.benevolat import BenevolatService
from unionflow.dons.schemas import AnnulerContributionBenevoleRequest, CreateContributionBenevoleRequest

OPERATION = "POST /api/comptabilite/benevolat"  # the API route's idempotency scope: one key, one line
CHAMPS = ("date_contribution", "heures", "taux_horaire", "activite")


@page("/benevolat", RS_MEMBRE_READ)
async def registre(ctx: Ctx) -> Response:
    query = ctx.request.query_params
    today = date.today()
    debut = parse_date(query.get("debut", ""), "Du") or date(today.year, 1, 1)
    fin = parse_date(query.get("fin", ""), "Au") or today
    r = await BenevolatService(ctx.db, ctx.auth).registre(ctx.organisation(), debut, fin)
    return ctx.render("benevolat.html", registre=r, fait=query.get("fait"),
                      peut_annuler=RS_BUREAU.allows(ctx.auth.roles)
                      and ctx.can(Permission.BENEVOLAT_ENREGISTRER, r.organisation_id))


@page("/benevolat/{id}/annuler", RS_BUREAU, methods=("POST",), again=registre)
async def annuler(ctx: Ctx) -> Response:
    try:
        data = AnnulerContributionBenevoleRequest.model_validate({"motif": ctx.field("motif")})
    except ValidationError as error:
        raise schema_error(error) from None
    await BenevolatService(ctx.db, ctx.auth).annuler(parse_id(ctx.request.path_params["id"]), data)
    return redirect("/benevolat?fait=annule")


@page("/membres/{id}/benevolat", RS_BUREAU)
async def nouveau(ctx: Ctx) -> Response:
    membre = await services.membre(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]))
    ctx.auth.require(Permission.BENEVOLAT_ENREGISTRER, ctx.organisation())
    saisi = ctx.saisi(*CHAMPS)
    saisi["date_contribution"] = saisi["date_contribution"] or f"{datetime.now(UTC).date()}"
    return ctx.render("benevolat_nouveau.html", membre=membre, saisi=saisi,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()))


@page("/membres/{id}/benevolat", RS_BUREAU, methods=("POST",), again=nouveau)
async def nouveau_post(ctx: Ctx) -> Response:
    body = services.corps(organisationId=str(ctx.organisation()), membreId=str(parse_id(ctx.request.path_params["id"])),
                          dateContribution=ctx.field("date_contribution"), heures=ctx.field("heures").replace(",", "."),
                          tauxHoraire=str(ctx.montant("taux_horaire")), activite=ctx.field("activite"))
    try:
        data = CreateContributionBenevoleRequest.model_validate(body)
    except ValidationError as error:
        raise schema_error(error) from None
    idem = IdempotentRequest.for_form(ctx.db, OPERATION, ctx.field("idempotency_key"), body)
    await idem.answer(ctx.auth, lambda: BenevolatService(ctx.db, ctx.auth).enregistrer(data), 201)
    return redirect("/benevolat?fait=enregistre")
