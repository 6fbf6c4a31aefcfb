"""LCB-FT alerts in the console: the organisation's administrator treats them (decision and reason, the API's
``POST /api/alertes-lcb-ft/{id}/traiter``); the external auditor reads them, open and treated, and treats none.

Role sets are the API's: ``RS_LCB_LECTURE`` to read (as ``GET /api/alertes-lcb-ft``), ``RS_LCB`` to treat; the
service asks ``LCBFT_TRAITER`` of the alert's organisation and keeps the first decision (409 after).
"""

from __future__ import annotations

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, schema_error
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_LCB, RS_LCB_LECTURE
from unionflow.lcbft.schemas import TraiterAlerteRequest
from unionflow.models.lcbft import Decision

# Each open alert carries its form (~0.8 KB): 25 open and 20 treated keep the page under 30 KB.
OUVERTES, TRAITEES = 25, 20
DECISIONS = {Decision.SANS_SUITE.value: "Sans suite",
             Decision.DECLARATION_SOUPCON.value: "Déclaration de soupçon à la CENTIF"}


@page("/alertes", RS_LCB_LECTURE)
async def alertes(ctx: Ctx) -> Response:
    ouvertes = await services.alertes_ouvertes(ctx.db, ctx.auth, OUVERTES)
    traitees = await services.alertes_ouvertes(ctx.db, ctx.auth, TRAITEES, traitee=True)
    org = ctx.auth.active_organisation_id
    traiter = RS_LCB.allows(ctx.auth.roles) and ctx.can(Permission.LCBFT_TRAITER, org)
    return ctx.render("alertes.html", alertes=ouvertes, traitees=traitees, traiter=traiter, decisions=DECISIONS,
                      fait=ctx.request.query_params.get("fait"))


@page("/alertes/{id}/traiter", RS_LCB, methods=("POST",), again="/alertes")
async def traiter(ctx: Ctx) -> Response:
    alerte_id = parse_id(ctx.request.path_params["id"])
    try:
        data = TraiterAlerteRequest(commentaire=ctx.field("commentaire"),
                                    decision=Decision(ctx.field("decision") or Decision.SANS_SUITE.value))
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:  # a decision outside the list in a forged form
        raise InvalidInput("Décision inconnue") from None
    await services.traiter_alerte(ctx.db, ctx.auth, str(alerte_id), data)
    return redirect("/alertes?fait=traitee")
