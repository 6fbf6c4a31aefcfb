"""The organisation's accounting referential in the console: the one in force, its history, and the form the
president or the organisation's administrator chooses with — through the API's own service (ReferentielService:
the permission, the PCMS rule, the audit)."""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.responses import Response

from unionflow.configuration.referentiel import ReferentielService
from unionflow.configuration.schemas import ChoisirReferentielRequest
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_installation import _organisation
from unionflow.console.services import corps
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_TRESORERIE_READ

LIBELLES = {"SYCEBNL_NORMAL": "SYCEBNL — système normal",
            "SYCEBNL_SMT": "SYCEBNL — système minimal de trésorerie (petites entités)",
            "PCMS": "PCMS — mutuelle sociale agréée (UEMOA, Règlement n° 07/2009)"}


@page("/organisations/{id}/referentiel", RS_TRESORERIE_READ)
async def referentiel(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    vu = await ReferentielService(ctx.db, ctx.auth).obtenir(org.id, None)
    saisi = {n: ctx.typed(n, d) for n, d in (("referentiel", vu.referentiel.value),
                                             ("exercice", str(datetime.now(UTC).year)), ("motif", ""),
                                             ("reference_agrement", ""))}
    return ctx.render("organisation_referentiel.html", organisation=org, vu=vu, libelles=LIBELLES, saisi=saisi,
                      gerer=ctx.can(Permission.REFERENTIEL_CHOISIR, org.id), fait=ctx.request.query_params.get("fait"))


@page("/organisations/{id}/referentiel", RS_TRESORERIE_READ, methods=("POST",), again=referentiel)
async def referentiel_post(ctx: Ctx) -> Response:
    org = await _organisation(ctx)
    exercice = ctx.field("exercice")  # a year as typed; what is not one is left for the schema to refuse
    data = ChoisirReferentielRequest.model_validate(corps(
        referentiel=ctx.field("referentiel"), exercice=int(exercice) if exercice.isdigit() else exercice,
        motif=ctx.field("motif"),
        referenceAgrement=ctx.field("reference_agrement") or None))
    await ReferentielService(ctx.db, ctx.auth).choisir(org.id, data)
    return redirect(f"/organisations/{org.id}/referentiel?fait=choisi")
