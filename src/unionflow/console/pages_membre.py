"""Member: what he owes and has paid, his receipts, declaring a payment, his notifications."""

from __future__ import annotations

import uuid

from starlette.responses import RedirectResponse, Response

from unionflow.console import services, services_finance
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.roles import RS_COMPTE_ADHERENT, RS_COTISATION_PAYER, RS_NOTIFICATION_MES, RS_WAVE_CHECKOUT
from unionflow.donnees_membre.pdf import rendre
from unionflow.donnees_membre.service import DonneesService

# WAVE_TRANSFERT: money already sent to the organisation's Wave number (its transaction id required), never a
# checkout; each method is booked to the organisation's treasury of its type when confirmed.
METHODES_DECLAREES = ("ESPECES", "WAVE_TRANSFERT", "ORANGE_MONEY", "FREE_MONEY", "VIREMENT", "CHEQUE", "AUTRE")


@page("/moi", RS_COMPTE_ADHERENT)
async def moi(ctx: Ctx) -> Response:
    compte = await services.mon_compte(ctx.db, ctx.auth)
    paiements = await services.mes_paiements(ctx.db, ctx.auth)
    wave = RS_WAVE_CHECKOUT.allows(ctx.auth.roles)
    return ctx.render("moi.html", compte=compte, paiements=paiements.content, cle=str(uuid.uuid4()), wave=wave,
                      form_action=_launch_origin(ctx) if wave and compte.cotisations_a_payer else None)


@page("/moi/cotisations/{id}/declarer", RS_COTISATION_PAYER)
async def declarer(ctx: Ctx) -> Response:
    cotisation_id = parse_id(ctx.request.path_params["id"])
    compte = await services.mon_compte(ctx.db, ctx.auth)
    cotisation = next((c for c in compte.cotisations_a_payer if c.id == cotisation_id), None)
    if cotisation is None:
        return await _not_found(ctx)
    return ctx.render("declarer.html", cotisation=cotisation, methodes=METHODES_DECLAREES,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()),
                      saisi=ctx.saisi("montant", "methode", "reference"))


async def _not_found(ctx: Ctx) -> Response:
    from unionflow.core.errors import NotFound

    raise NotFound("Cotisation introuvable")


@page("/moi/cotisations/{id}/declarer", RS_COTISATION_PAYER, methods=("POST",), again=declarer)
async def declarer_post(ctx: Ctx) -> Response:
    await services.declarer(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                            parse_id(ctx.request.path_params["id"]), ctx.montant(),
                            ctx.field("methode") or "ESPECES", ctx.field("reference"))
    return redirect("/moi?declare=1")


@page("/moi/notifications", RS_NOTIFICATION_MES)
async def notifications(ctx: Ctx) -> Response:
    found = await services.mes_notifications(ctx.db, ctx.auth)
    return ctx.render("notifications.html", notifications=found.content)


def _launch_origin(ctx: Ctx) -> str:
    """Where Wave's checkout pages live (the simulator's in the demo): the page holding the "Payer par Wave" form
    allows its post to be redirected there (CSP ``form-action`` also governs the redirect after a form post)."""
    return str(ctx.request.app.state.settings.wave_launch_origin)


@page("/moi/cotisations/{id}/wave", RS_WAVE_CHECKOUT, methods=("POST",), again="/moi")
async def payer_wave(ctx: Ctx) -> Response:
    """POST /api/paiements/wave/checkout for this dues (what remains owed), then off to Wave's launch URL. The
    payment stays EN_ATTENTE, and nothing is credited, until Wave's signed webhook confirms it."""
    cotisation_id = parse_id(ctx.request.path_params["id"])
    compte = await services.mon_compte(ctx.db, ctx.auth)
    cotisation = next((c for c in compte.cotisations_a_payer if c.id == cotisation_id), None)
    if cotisation is None:
        return await _not_found(ctx)
    url = await services_finance.payer_wave(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                                            cotisation.organisation_id, cotisation_id)
    return RedirectResponse(url, status_code=303)


@page("/moi/donnees.pdf", RS_COMPTE_ADHERENT)
async def mes_donnees_pdf(ctx: Ctx) -> Response:
    """Right of access (Loi 2008-12): all the member's data, as the API's GET /api/moi/donnees.pdf."""
    membre, donnees = await DonneesService(ctx.db, ctx.auth, ctx.request.app.state.settings.issuer).mes_donnees()
    return Response(rendre(membre, donnees, ctx.auth.actor_name), media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="donnees-{membre.numero_membre}.pdf"',
        "Cache-Control": "no-store"})


@page("/moi/donnees.json", RS_COMPTE_ADHERENT)
async def mes_donnees_json(ctx: Ctx) -> Response:
    _, donnees = await DonneesService(ctx.db, ctx.auth, ctx.request.app.state.settings.issuer).mes_donnees()
    return Response(donnees.model_dump_json(by_alias=True), media_type="application/json", headers={
        "Content-Disposition": 'attachment; filename="mes-donnees.json"', "Cache-Control": "no-store"})
