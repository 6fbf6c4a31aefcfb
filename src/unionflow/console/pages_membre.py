"""Member: what he owes and has paid, his receipts, declaring a payment, his notifications."""

from __future__ import annotations

import uuid

from starlette.responses import Response

from unionflow.console import services
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id, parse_montant
from unionflow.core.roles import RS_COMPTE_ADHERENT, RS_COTISATION_PAYER, RS_NOTIFICATION_MES

METHODES_DECLAREES = ("ESPECES", "VIREMENT", "CHEQUE", "AUTRE")


@page("/moi", RS_COMPTE_ADHERENT)
async def moi(ctx: Ctx) -> Response:
    compte = await services.mon_compte(ctx.db, ctx.auth)
    paiements = await services.mes_paiements(ctx.db, ctx.auth)
    return ctx.render("moi.html", compte=compte, paiements=paiements.content)


@page("/moi/cotisations/{id}/declarer", RS_COTISATION_PAYER)
async def declarer(ctx: Ctx) -> Response:
    cotisation_id = parse_id(ctx.request.path_params["id"])
    compte = await services.mon_compte(ctx.db, ctx.auth)
    cotisation = next((c for c in compte.cotisations_a_payer if c.id == cotisation_id), None)
    if cotisation is None:
        return await _not_found(ctx)
    return ctx.render("declarer.html", cotisation=cotisation, methodes=METHODES_DECLAREES, cle=str(uuid.uuid4()))


async def _not_found(ctx: Ctx) -> Response:
    from unionflow.core.errors import NotFound

    raise NotFound("Cotisation introuvable")


@page("/moi/cotisations/{id}/declarer", RS_COTISATION_PAYER, methods=("POST",))
async def declarer_post(ctx: Ctx) -> Response:
    await services.declarer(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                            parse_id(ctx.request.path_params["id"]), parse_montant(ctx.field("montant")),
                            ctx.field("methode") or "ESPECES", ctx.field("reference"))
    return redirect("/moi?declare=1")


@page("/moi/notifications", RS_NOTIFICATION_MES)
async def notifications(ctx: Ctx) -> Response:
    found = await services.mes_notifications(ctx.db, ctx.auth)
    return ctx.render("notifications.html", notifications=found.content)
