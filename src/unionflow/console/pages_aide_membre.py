"""Member: ask his organisation for aid and follow each request (submitted, granted with its amount, refused with
its reason, paid). The API's operations (``DemandeAideService.creer`` / ``lister`` « mes demandes », POST and
GET /api/demandes-aide/mes, role set RS-AIDE); the schema's French 400 comes back beside the field."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.services import corps
from unionflow.core.errors import InvalidInput
from unionflow.core.pagination import PageParams
from unionflow.core.roles import RS_AIDE
from unionflow.demandes_aide.repository import DemandeFilters
from unionflow.demandes_aide.schemas import CreateDemandeAideRequest
from unionflow.demandes_aide.service import DemandeAideService

# The usual aid types (the reference table TYPE_AIDE may hold others; the service checks the one chosen).
TYPES_AIDE = ("DECES", "MALADIE", "MARIAGE", "NAISSANCE", "SCOLARITE", "SINISTRE", "AUTRE")
URGENCES = ("FAIBLE", "NORMALE", "ELEVEE", "CRITIQUE")


@page("/moi/aides", RS_AIDE)
async def mes_aides(ctx: Ctx) -> Response:
    mine, _ = await DemandeAideService(ctx.db, ctx.auth).lister(DemandeFilters(only_mine=True), PageParams(0, 50))
    return ctx.render("mes_aides.html", demandes=mine, types=TYPES_AIDE, urgences=URGENCES,
                      peut_demander=ctx.auth.membre_id is not None and bool(ctx.auth.member_organisations),
                      saisi=ctx.saisi("type", "titre", "description", "montant", "urgence"),
                      fait=ctx.request.query_params.get("fait") == "1")


@page("/moi/aides", RS_AIDE, methods=("POST",))
async def demander_aide(ctx: Ctx) -> Response:
    organisation_id = ctx.auth.active_organisation_id
    if organisation_id is None or organisation_id not in ctx.auth.member_organisations:
        organisation_id = next(iter(sorted(ctx.auth.member_organisations, key=str)), None)
    if organisation_id is None:
        raise InvalidInput("Aucune organisation dont vous êtes membre: impossible de déposer une demande")
    data = CreateDemandeAideRequest.model_validate(corps(
        organisationId=str(organisation_id), type=ctx.field("type"), titre=ctx.field("titre"),
        description=ctx.field("description"), montantDemande=str(ctx.montant()),
        urgence=ctx.field("urgence") or "NORMALE"))
    await DemandeAideService(ctx.db, ctx.auth).creer(data)
    return redirect("/moi/aides?fait=1")
