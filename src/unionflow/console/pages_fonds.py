"""Earmarked funds in the console: the year's statement per fund (carried forward, received, used, closing) beside
the books (what 165 holds at 31 December, and the difference), read by the treasury, the president and the external
auditor (``RS_TRESORERIE_READ``, as ``GET /api/comptabilite/fonds-dedies/etat``); and, per fund, the form that
assigns a use — booked 165 → 7925 — by the treasury (``RS_TRESORERIE``), through the API's own service under the API
route's idempotency scope (as ``POST /api/comptabilite/fonds-dedies/{id}/emplois``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_comptabilite import parse_date
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import RegleMetier, schema_error
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.dons.fonds import FondsDedieService
from unionflow.dons.schemas import CreateEmploiFondsRequest

OPERATION = "POST /api/comptabilite/fonds-dedies/{id}/emplois"  # the API route's idempotency scope


def _annee(ctx: Ctx) -> int:
    texte = ctx.request.query_params.get("annee", "")
    if not texte:
        return datetime.now(UTC).year
    if not texte.isdigit() or not 2000 <= int(texte) <= 2100:
        raise RegleMetier("Année invalide: quatre chiffres, entre 2000 et 2100")
    return int(texte)


@page("/fonds-dedies", RS_TRESORERIE_READ)
async def fonds(ctx: Ctx) -> Response:
    annee = _annee(ctx)
    service = FondsDedieService(ctx.db, ctx.auth)
    organisation_id = ctx.organisation()
    etat = await service.etat(organisation_id, annee)
    courante = annee == datetime.now(UTC).year
    peut_employer = courante and RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(
        Permission.COMPTABILITE_ECRIRE, organisation_id)
    # One key per fund's form: a double click assigns the use once (kept when the form comes back refused).
    cles = {f.fonds_id: ctx.typed_row(f.fonds_id, "idempotency_key") or str(uuid.uuid4()) for f in etat.fonds}
    return ctx.render("fonds_dedies.html", etat=etat, peut_employer=peut_employer, cles=cles,
                      fait=ctx.request.query_params.get("fait"), aujourdhui=datetime.now(UTC).date())


@page("/fonds-dedies/{id}/emplois", RS_TRESORERIE, methods=("POST",), again=fonds)
async def employer(ctx: Ctx) -> Response:
    fonds_id = parse_id(ctx.request.path_params["id"])
    jour = parse_date(ctx.field("date_emploi"), "Date")
    if jour is None:
        raise RegleMetier("La date de l'emploi est obligatoire")
    # The day the person typed, at its first instant (UTC, Senegal's time): the same body on a resubmitted form, so
    # the key replays the first answer; today's is never in the future. A later day is refused by the service.
    quand = datetime.combine(jour, time(), UTC)
    body = {"dateEmploi": quand.isoformat(), "montant": str(ctx.montant()), "libelle": ctx.field("libelle"),
            "reference": ctx.field("reference")}
    try:
        data = CreateEmploiFondsRequest.model_validate(body)
    except ValidationError as error:
        raise schema_error(error) from None
    idem = IdempotentRequest.for_form(ctx.db, OPERATION, ctx.field("idempotency_key"), body, {"id": fonds_id})
    await idem.answer(ctx.auth, lambda: FondsDedieService(ctx.db, ctx.auth).employer(fonds_id, data), 201)
    return redirect("/fonds-dedies?fait=emploi")
