"""The register of donations and bequests in the console: the lines of a period, the seal's check, and the
register to print (PDF to sign by the president, XLSX), read by the treasury, the president and the external
auditor (``RS_TRESORERIE_READ``, as ``GET /api/comptabilite/registre-dons``); and the counter's gift form on a
member's page, with the donor's identity (``RS_TRESORERIE``, as ``POST /api/paiements/recettes``)."""

from __future__ import annotations

import uuid
from datetime import date

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_comptabilite import parse_date
from unionflow.console.pages_tresorier import METHODES_GUICHET, parse_id
from unionflow.core import tableaux
from unionflow.core.errors import NotFound, schema_error
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.dons import tableau
from unionflow.dons.schemas import RegistreDonsResponse
from unionflow.dons.service import RegistreDonService
from unionflow.paiements.recette_service import RecetteService
from unionflow.paiements.schemas import CreateRecetteRequest

# One row (~300 bytes) per donation: 100 rows keep the page under 30 KB; the PDF carries the whole period.
LIGNES = 100
OPERATION_RECETTE = "POST /api/paiements/recettes"  # the API route's idempotency scope: one key, one gift



async def _registre(ctx: Ctx) -> RegistreDonsResponse:
    query = ctx.request.query_params
    today = date.today()
    debut = parse_date(query.get("debut", ""), "Du") or date(today.year, 1, 1)
    fin = parse_date(query.get("fin", ""), "Au") or today
    return await RegistreDonService(ctx.db, ctx.auth).registre(ctx.organisation(), debut, fin)


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
    content, media = tableaux.rendu(table, fmt)
    return Response(content, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="registre-dons-{r.debut}-{r.fin}.{fmt}"',
        "Cache-Control": "no-store"})


TYPES_DONATEUR = (("MEMBRE", "Le membre lui-même"), ("PERSONNE_PHYSIQUE", "Une personne (tiers)"),
                  ("PERSONNE_MORALE", "Une entreprise ou une institution"),
                  ("ANONYME", "Anonyme (sous le seuil LCB-FT)"))
CHAMPS = ("montant", "methode", "reference", "affectation", "type", "nom", "telephone", "piece", "rccm", "ninea")


@page("/membres/{id}/don", RS_TRESORERIE)
async def don(ctx: Ctx) -> Response:
    membre = await services.membre(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]))
    ctx.auth.require(Permission.PAIEMENT_ENREGISTRER, ctx.auth.active_organisation_id)
    return ctx.render("don.html", membre=membre, methodes=METHODES_GUICHET, types=TYPES_DONATEUR,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()), saisi=ctx.saisi(*CHAMPS))


@page("/membres/{id}/don", RS_TRESORERIE, methods=("POST",), again=don)
async def don_post(ctx: Ctx) -> Response:
    """The API's DON receipt (``POST /api/paiements/recettes``) under the form's idempotency key."""
    membre_id = parse_id(ctx.request.path_params["id"])
    organisation_id = ctx.organisation()
    genre = ctx.field("type") or "MEMBRE"
    donateur = None if genre == "MEMBRE" else services.corps(
        type=genre, nom=ctx.field("nom"), telephone=ctx.field("telephone"), pieceIdentite=ctx.field("piece"),
        rccm=ctx.field("rccm"), ninea=ctx.field("ninea"))
    body = services.corps(nature="DON", membreId=str(membre_id), organisationId=str(organisation_id),
                          montant=str(ctx.montant()), methode=ctx.field("methode") or "ESPECES",
                          referenceExterne=ctx.field("reference"), affectation=ctx.field("affectation"),
                          donateur=donateur)
    try:
        data = CreateRecetteRequest.model_validate(body)
    except ValidationError as error:
        raise schema_error(error) from None
    idem = IdempotentRequest.for_form(ctx.db, OPERATION_RECETTE, ctx.field("idempotency_key"), body)
    answer = await idem.answer(ctx.auth, lambda: RecetteService(ctx.db, ctx.auth).encaisser(data), 201)
    return redirect(f"/paiements/{answer.body['id']}")
