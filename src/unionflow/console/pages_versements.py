"""Treasurer: payouts (prepare, confirm by a second person, cancel) with their approval requests, and aid requests
(decide, then pay out). Role sets are the API's for the same operations (``RS_TRESORERIE_READ`` to list payouts,
``RS_TRESORERIE`` to act on them, ``RS_FINANCE_DECIDE`` on approvals, ``RS_AIDE`` on aid requests); each action is
offered only when ``auth.can`` grants its permission, and the services refuse it when forced (the four-eyes rules
— nobody confirms his own payout, decides his own aid or approves his own request — live in the services)."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from pydantic import ValidationError
from starlette.responses import Response

from unionflow.console import services, services_finance, services_tresoreries
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.core.errors import InvalidInput, schema_error
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_AIDE, RS_FINANCE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ, RS_VERSEMENT_CONFIRMER
from unionflow.federation.schemas import CreateQuotePartRequest
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.models.versement import ModeVersement, ObjetVersement, StatutVersement
from unionflow.paiements.versements.schemas import CreateVersementRequest

# Each card carries its decision or payout form (~1 KB): at most 15 per list keeps the page under 30 KB.
MAX_CARTES = 15
OBJETS = {"COTISATIONS": "Reversement de cotisations", "ADHESIONS": "Reversement de frais d'adhésion",
          "AIDE": "Aide accordée", "AUTRE": "Autre dépense", "QUOTE_PART": "Quote-part versée à la fédération"}


async def _sorties(ctx: Ctx) -> list[Any]:
    """The treasuries a payout may leave from (the active organisation's active ones), for whoever prepares it."""
    org = ctx.auth.active_organisation_id
    if org is None or not ctx.can(Permission.VERSEMENT_INITIER, org):
        return []
    return [t for t in await services_tresoreries.tresoreries(ctx.db, ctx.auth, org) if t.actif]


@page("/versements", RS_TRESORERIE_READ)
async def versements(ctx: Ctx) -> Response:
    # Each payout to confirm carries its forms (~1 KB): 15 of them and 20 past ones keep the page under 30 KB.
    try:
        numero = max(0, int(ctx.request.query_params.get("page", "0")))
    except ValueError:
        numero = 0
    en_cours = await services_finance.versements(ctx.db, ctx.auth, ctx.request, StatutVersement.EN_COURS.value, 15,
                                                 numero)
    historique = await services_finance.versements(ctx.db, ctx.auth, ctx.request, None, 20)
    approbations = await services_finance.approbations_versements(ctx.db, ctx.auth)
    autres = await services_finance.autres_approbations(ctx.db, ctx.auth)
    org = ctx.auth.active_organisation_id
    return ctx.render(
        "versements.html", versements=en_cours, historique=[v for v in historique.content
                                                              if v.statut != StatutVersement.EN_COURS],
        approbations=approbations, autres=autres, objets=OBJETS, cle=str(uuid.uuid4()), numero=numero,
        peut_preparer=ctx.can(Permission.VERSEMENT_INITIER) and org is not None,
        tresoreries=await _sorties(ctx),
        federation=(await services_finance.federation_du_payeur(ctx.db, ctx.auth, org)
                    if org is not None and ctx.can(Permission.VERSEMENT_INITIER, org) else None),
        peut_confirmer=ctx.can(Permission.VERSEMENT_CONFIRMER),
        peut_decider=RS_FINANCE_DECIDE.allows(ctx.auth.roles) and ctx.can(Permission.FINANCE_DECIDER))


@page("/versements", RS_TRESORERIE, methods=("POST",))
async def preparer(ctx: Ctx) -> Response:
    organisation_id = ctx.organisation()
    objet_id = parse_id(ctx.field("objet_id")) if ctx.field("objet_id") else None
    try:
        data = CreateVersementRequest(
            organisation_id=organisation_id, montant=ctx.montant(),
            mode=ModeVersement(ctx.field("mode") or "MANUEL"), objet_type=ObjetVersement(ctx.field("objet_type")),
            objet_id=objet_id, motif=ctx.field("motif"), beneficiaire_nom=ctx.field("beneficiaire_nom"),
            beneficiaire_telephone=ctx.field("beneficiaire_telephone") or None,
            tresorerie_id=parse_id(ctx.field("tresorerie")) if ctx.field("tresorerie") else None)
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:  # an unknown mode or object in a forged form
        raise InvalidInput("Mode ou objet du versement inconnu") from None
    versement_id = await services_finance.preparer_versement(ctx.db, ctx.auth, ctx.request,
                                                             ctx.field("idempotency_key"), data)
    return redirect(f"/versements#versement-{versement_id}")


@page("/versements/quote-part", RS_TRESORERIE, methods=("POST",), again="/versements")
async def quote_part(ctx: Ctx) -> Response:
    """The quote-part to the federation: the API's operation (``POST /api/federations/quotes-parts``), a payout
    confirmed by a second person like any other."""
    organisation_id = ctx.organisation()
    try:
        data = CreateQuotePartRequest(
            organisation_id=organisation_id, montant=ctx.montant(),
            mode=ModeVersement(ctx.field("mode") or "MANUEL"), motif=ctx.field("motif"),
            beneficiaire_telephone=ctx.field("beneficiaire_telephone") or None,
            tresorerie_id=parse_id(ctx.field("tresorerie")) if ctx.field("tresorerie") else None)
    except ValidationError as error:
        raise schema_error(error) from None
    except ValueError:  # an unknown mode in a forged form
        raise InvalidInput("Mode du versement inconnu") from None
    versement_id = await services_finance.verser_quote_part(ctx.db, ctx.auth, ctx.request,
                                                            ctx.field("idempotency_key"), data)
    return redirect(f"/versements#versement-{versement_id}")


@page("/versements/{id}/bon", RS_TRESORERIE_READ)
async def bon(ctx: Ctx) -> Response:
    numero, pdf = await services_finance.bon_versement(ctx.db, ctx.auth, ctx.request,
                                                       parse_id(ctx.request.path_params["id"]))
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="bon-{numero}.pdf"', "Cache-Control": "no-store"})


@page("/versements/{id}/confirmer", RS_VERSEMENT_CONFIRMER, methods=("POST",), again="/versements")
async def confirmer(ctx: Ctx) -> Response:
    versement_id = parse_id(ctx.request.path_params["id"])
    await services_finance.confirmer_versement(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                                               versement_id, ctx.field("reference"))
    return redirect(f"/versements?fait=confirme#versement-{versement_id}")


@page("/versements/{id}/annuler", RS_TRESORERIE, methods=("POST",), again="/versements")
async def annuler(ctx: Ctx) -> Response:
    motif = ctx.field("motif")
    if len(motif) < 3:
        raise InvalidInput("Indiquez le motif de l'annulation (3 caractères au moins)")
    await services_finance.annuler_versement(ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"),
                                             parse_id(ctx.request.path_params["id"]), motif)
    return redirect("/versements?fait=annule")


@page("/approbations/{id}/{decision:str}", RS_FINANCE_DECIDE, methods=("POST",), again="/versements")
async def decider_approbation(ctx: Ctx) -> Response:
    decision = ctx.request.path_params["decision"]
    if decision not in ("approuver", "rejeter"):
        raise InvalidInput("Décision inconnue")
    commentaire = ctx.field("commentaire") or None
    if decision == "rejeter" and (commentaire is None or len(commentaire) < 3):
        raise InvalidInput("Indiquez le motif du rejet (3 caractères au moins)")
    await services_finance.decider_approbation(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]),
                                               decision == "approuver", commentaire)
    return redirect("/versements?fait=decide")


@page("/aides", RS_AIDE)
async def aides(ctx: Ctx) -> Response:
    soumises = (await services_finance.demandes_aide(ctx.db, ctx.auth, StatutDemandeAide.SOUMISE))[:MAX_CARTES]
    approuvees = await services_finance.demandes_aide(ctx.db, ctx.auth, StatutDemandeAide.APPROUVEE)
    engage = (await services_finance.aides_versees(ctx.db, ctx.auth, ctx.request)
              if RS_TRESORERIE_READ.allows(ctx.auth.roles) else {})
    # A granted aid whose payouts already carry the whole grant has nothing left to pay: not listed.
    approuvees = [d for d in approuvees
                  if engage.get(d.id, Decimal(0)) < (d.montant_accorde or Decimal(0))][:MAX_CARTES]
    noms: dict[uuid.UUID, str] = {}
    for d in soumises + approuvees:
        if d.membre_id not in noms:
            m = await services.membre(ctx.db, ctx.auth, d.membre_id)
            noms[d.membre_id] = f"{m.prenom} {m.nom}"
    return ctx.render("aides.html", soumises=[(d, ctx.can(Permission.AIDE_DECIDER, d.organisation_id)
                                               and d.membre_id != ctx.auth.membre_id) for d in soumises],
                      approuvees=[(d, ctx.can(Permission.VERSEMENT_INITIER, d.organisation_id)) for d in approuvees],
                      noms=noms, engage=engage, cle=str(uuid.uuid4()), tresoreries=await _sorties(ctx))


@page("/aides/{id}/{decision:str}", RS_AIDE, methods=("POST",), again="/aides")
async def decider_aide(ctx: Ctx) -> Response:
    decision = ctx.request.path_params["decision"]
    if decision not in ("approuver", "rejeter"):
        raise InvalidInput("Décision inconnue")
    motif = ctx.field("motif") or None
    if decision == "rejeter" and motif is None:
        raise InvalidInput("Indiquez le motif du rejet")
    montant: Decimal | None = ctx.montant() if ctx.field("montant") else None
    await services_finance.decider_aide(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]),
                                        decision == "approuver", motif, montant)
    return redirect("/aides?fait=decide")
