"""The member's USSD PIN in the console: its state and a form to set it, through the API's service (the
treasury's reset is the API route ``POST /api/ussd/pin/{membreId}/reinitialiser``); the treasury's « reset and
send a code by SMS » from the member's page (the API's ``POST /api/ussd/pin/{membreId}/code-sms``)."""

from __future__ import annotations

from starlette.responses import Response

from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.roles import RS_COMPTE_ADHERENT, RS_TRESORERIE
from unionflow.ussd.pin_service import PinUssdService


@page("/moi/pin-ussd", RS_COMPTE_ADHERENT)
async def pin_ussd(ctx: Ctx) -> Response:
    etat = await PinUssdService(ctx.db, ctx.auth, ctx.request.app.state.settings).etat_mien()
    return ctx.render("pin_ussd.html", etat=etat, fait=ctx.request.query_params.get("fait") == "1")


@page("/moi/pin-ussd", RS_COMPTE_ADHERENT, methods=("POST",), again=pin_ussd)
async def pin_ussd_post(ctx: Ctx) -> Response:
    await PinUssdService(ctx.db, ctx.auth, ctx.request.app.state.settings).definir(ctx.field("pin"))
    return redirect("/moi/pin-ussd?fait=1")


@page("/membres/{id}/pin-ussd/code-sms", RS_TRESORERIE, methods=("POST",), again="/membres/{id}")
async def code_pin_sms(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    await PinUssdService(ctx.db, ctx.auth, ctx.request.app.state.settings).envoyer_code(membre_id)
    return redirect(f"/membres/{membre_id}?fait=code-pin")
