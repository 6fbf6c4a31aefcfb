"""Undoing money with four eyes, and cancelling dues in the console.

Role sets are the API's for the same operations: ``RS_TRESORERIE`` to ask for a cancellation or a refund, to
withdraw one's request and to cancel dues; ``RS_TRESORERIE_READ`` to list requests; ``RS_ANNULATION_DECIDE`` to
approve or reject. Each action is offered only when ``auth.can`` grants its permission; the four-eyes rules (not the
requester, not whoever recorded or confirmed the money) live in ``AnnulationService``, whose French reason is the
403 page when forced.
"""

from __future__ import annotations

import uuid

from starlette.responses import Response

from unionflow.console import services_annulations as annulations
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_ANNULATION_DECIDE, RS_PAIEMENT_READ, RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.models.annulation import StatutDemandeAnnulation

TYPES = {"ANNULATION_PAIEMENT": "Annulation du paiement", "REMBOURSEMENT_PAIEMENT": "Remboursement du paiement",
         "ANNULATION_VERSEMENT": "Annulation du versement", "CONTREPASSATION_ECRITURE": "Contrepassation de l'écriture"}
DECISIONS = ("approuver", "rejeter", "retirer")
# Each pending request carries its decision form (~1.2 KB): 15 cards and 20 decided rows keep the page under 30 KB.
MAX_CARTES = 15


def _motif(ctx: Ctx, quoi: str) -> str:
    motif = ctx.field("motif")
    if not 3 <= len(motif) <= 500:
        raise InvalidInput(f"Indiquez le motif {quoi} (3 à 500 caractères)")
    return motif


@page("/paiements/{id}/{demande:str}", RS_TRESORERIE, methods=("POST",), again="/paiements/{id}")
async def demander(ctx: Ctx) -> Response:
    """Ask to cancel (annuler) or refund (rembourser) a payment: nothing moves until a second person approves."""
    verbe = ctx.request.path_params["demande"]
    if verbe not in ("annuler", "rembourser"):
        raise InvalidInput("Demande inconnue")
    paiement_id = parse_id(ctx.request.path_params["id"])
    motif = _motif(ctx, "de l'annulation" if verbe == "annuler" else "du remboursement")
    await annulations.demander(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"), paiement_id,
                               verbe == "rembourser", motif)
    return redirect(f"/paiements/{paiement_id}?fait=demande")


@page("/paiements/{id}/recu-remboursement", RS_PAIEMENT_READ)
async def recu_remboursement(ctx: Ctx) -> Response:
    numero, pdf = await annulations.recu_remboursement(ctx.db, ctx.auth, ctx.request,
                                                       parse_id(ctx.request.path_params["id"]))
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="remboursement-{numero}.pdf"', "Cache-Control": "no-store"})


@page("/annulations", RS_TRESORERIE_READ)
async def liste(ctx: Ctx) -> Response:
    en_attente = await annulations.demandes(ctx.db, ctx.auth, StatutDemandeAnnulation.EN_ATTENTE)
    passees = [d for d in await annulations.demandes(ctx.db, ctx.auth, None)
               if d.statut != StatutDemandeAnnulation.EN_ATTENTE][:20]
    moi = ctx.auth.actor_name
    # Offered: deciding to whoever holds annulation.approuver and did not ask (the service also refuses whoever
    # recorded or confirmed the money, with its reason); withdrawing to the requester.
    cartes = [(d, d.demande_par != moi and RS_ANNULATION_DECIDE.allows(ctx.auth.roles)
               and ctx.can(Permission.ANNULATION_APPROUVER, d.organisation_id),
               d.demande_par == moi and RS_TRESORERIE.allows(ctx.auth.roles)) for d in en_attente[:MAX_CARTES]]
    return ctx.render("annulations.html", cartes=cartes, total=len(en_attente), passees=passees, types=TYPES,
                      cle=str(uuid.uuid4()), fait=ctx.request.query_params.get("fait"))


async def _decider(ctx: Ctx, decision: str) -> Response:
    if decision not in DECISIONS:
        raise InvalidInput("Décision inconnue")
    commentaire = ctx.field("commentaire") or None
    if decision == "rejeter" and (commentaire is None or len(commentaire) < 3):
        raise InvalidInput("Indiquez la raison du rejet (3 caractères au moins)")
    await annulations.decider(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                              parse_id(ctx.request.path_params["id"]), decision, commentaire)
    return redirect(f"/annulations?fait={decision}")


# Registered before the decision route, whose {decision} would match "retirer" too.
@page("/annulations/{id}/retirer", RS_TRESORERIE, methods=("POST",), again="/annulations")
async def retirer(ctx: Ctx) -> Response:
    return await _decider(ctx, "retirer")


@page("/annulations/{id}/{decision:str}", RS_ANNULATION_DECIDE, methods=("POST",), again="/annulations")
async def decider(ctx: Ctx) -> Response:
    decision = ctx.request.path_params["decision"]
    if decision == "retirer":  # only through its own route (the requester's role set)
        raise InvalidInput("Décision inconnue")
    return await _decider(ctx, decision)


@page("/cotisations/annuler", RS_TRESORERIE, methods=("POST",))
async def annuler_cotisations(ctx: Ctx) -> Response:
    """From a member's page: cancel one dues or the ticked ones, with a reason (all or nothing for money received,
    as the API; a dues a pending payment reserves is left and the page says so)."""
    assert ctx.form is not None
    ids = sorted({parse_id(str(v)) for v in ctx.form.getlist("cotisation")})
    if not ids:
        raise InvalidInput("Cochez au moins une cotisation à annuler")
    motif = _motif(ctx, "de l'annulation")
    result = await annulations.annuler_cotisations(ctx.db, ctx.auth, ctx.field("idempotency_key"), ids, motif)
    retour = ctx.field("membre_id")
    fait = f"reservees&refusees={len(result.refusees)}" if result.refusees else "annulees"
    return redirect(f"/membres/{parse_id(retour)}?fait={fait}" if retour else "/tresorerie")
