"""Treasurer: the day's board, a member's page, cash at the counter with its receipt, declarations to confirm.

Role sets are the API's for the same data (``RS_TRESORERIE_READ`` for the board, ``RS_TRESORERIE`` to record,
``RS_PAIEMENT_READ`` for a payment and its receipt, ``RS_MEMBRE_SELF`` for a member, out of sight → 404);
actions are offered only when ``auth.can`` grants their permission, and the services refuse them when forced.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

from starlette.responses import Response

from unionflow.console import services, services_annulations, services_tresoreries
from unionflow.console.pages import Ctx, page, redirect
from unionflow.core.errors import InvalidInput, NotFound
from unionflow.core.permissions import Permission
from unionflow.core.roles import (
    RS_BUREAU,
    RS_CONSENTEMENT,
    RS_CONSENTEMENT_LECTURE,
    RS_LCB,
    RS_MEMBRE_READ,
    RS_MEMBRE_SELF,
    RS_MEMBRE_WRITE,
    RS_PAIEMENT_READ,
    RS_TRESORERIE,
    RS_TRESORERIE_READ,
)
from unionflow.cotisations.service import today_utc
from unionflow.donnees_personnelles.service import ConsentementService
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import MethodePaiement, StatutPaiement

# Every method the counter receives, each booked to the organisation's treasury of its type; WAVE (a checkout
# session, confirmed by Wave) is not typed at the counter: a direct Wave transfer is WAVE_TRANSFERT.
METHODES_GUICHET = ("ESPECES", "WAVE_TRANSFERT", "ORANGE_MONEY", "FREE_MONEY", "CHEQUE", "VIREMENT", "AUTRE")


def parse_id(value: str) -> uuid.UUID:
    """A malformed id in a console URL is a page that does not exist (the API answers 404 likewise)."""
    try:
        return uuid.UUID(value)
    except ValueError:
        raise NotFound("Page introuvable") from None


@page("/tresorerie", RS_TRESORERIE_READ)
async def tableau(ctx: Ctx) -> Response:
    # « Encaissé » today / this month / this year: the board's three figures, one definition over nested periods
    # (comptabilite/etats/encaisse.py); the number of payments confirmed today is beside them, not summed into them.
    board = await services.tableau_tresorerie(ctx.db, ctx.auth)
    aujourdhui = await services.paiements(ctx.db, ctx.auth, statut=StatutPaiement.VALIDE, jour=today_utc(), size=1)
    declarations = await services.paiements(ctx.db, ctx.auth, statut=StatutPaiement.EN_ATTENTE, size=20)
    # Open LCB-FT alerts only for whom the API's RS-LCB admits (not a treasurer alone): not offered otherwise.
    alertes = await services.alertes_ouvertes(ctx.db, ctx.auth, 5) if RS_LCB.allows(ctx.auth.roles) else None
    versements = await services.versements_a_approuver(ctx.db, ctx.auth, ctx.request, 5)
    return ctx.render("tresorerie.html", board=board, alertes=alertes, versements=versements,
                      nombre_jour=aujourdhui.total_elements, declarations=declarations,
                      peut_confirmer=ctx.can(Permission.PAIEMENT_ENREGISTRER, board.organisation_id))


@page("/membres/{id}", RS_MEMBRE_SELF)
async def fiche_membre(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    membre = await services.membre(ctx.db, ctx.auth, membre_id, ecran="console /membres/{id}")
    if membre.id == ctx.auth.membre_id and not RS_MEMBRE_READ.allows(ctx.auth.roles):
        return redirect("/moi")  # A member's own page is his account.
    appartenances = await services.appartenances(ctx.db, ctx.auth, membre_id)
    cotisations = await services.cotisations_de(ctx.db, ctx.auth, membre_id)
    paiements = await services.paiements(ctx.db, ctx.auth, membre_id=membre_id)
    du = sum((c.montant_restant for c in cotisations.content if c.statut != StatutCotisation.ANNULEE), Decimal(0))
    paye = sum((p.montant for p in paiements.content if p.statut == StatutPaiement.VALIDE), Decimal(0))
    # the member's credit with the organisation the treasury acts for, and its application.
    org = ctx.auth.active_organisation_id
    tresorerie = org is not None and RS_TRESORERIE.allows(ctx.auth.roles)
    avoir = (await services.avoir(ctx.db, ctx.auth, membre_id, org)
             if tresorerie and org is not None and ctx.can(Permission.PAIEMENT_ENREGISTRER, org) else None)
    # Consents (Loi 2008-12): read by the register keepers, recorded from the paper form by the secretariat.
    consentements = (await ConsentementService(ctx.db, ctx.auth, services.settings_of(ctx.request)).du_membre(membre_id)
                     if RS_CONSENTEMENT_LECTURE.allows(ctx.auth.roles) else None)
    papier = [a for a in appartenances if RS_CONSENTEMENT.allows(ctx.auth.roles)
              and ctx.can(Permission.CONSENTEMENT_RECUEILLIR, a.organisation_id)]
    return ctx.render("membre.html", membre=membre, consentements=consentements, papier=papier,
                      organisations={a.organisation_id: a.organisation_nom for a in appartenances},
                      appartenances=appartenances, cotisations=cotisations.content,
                      paiements=paiements.content, du=du, paye=paye, cle=str(uuid.uuid4()), avoir=avoir,
                      peut_imputer=avoir is not None and ctx.can(Permission.AVOIR_IMPUTER, org),
                      peut_encaisser=ctx.can(Permission.PAIEMENT_ENREGISTRER),
                      peut_benevolat=RS_BUREAU.allows(ctx.auth.roles) and ctx.can(Permission.BENEVOLAT_ENREGISTRER),
                      peut_code_pin=tresorerie and ctx.can(Permission.USSD_PIN_REINITIALISER),
                      peut_annuler=RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.COTISATION_ANNULER),
                      peut_modifier=RS_MEMBRE_WRITE.allows(ctx.auth.roles) and ctx.can(Permission.MEMBRE_GERER))


@page("/membres/{id}/encaisser", RS_TRESORERIE)
async def encaisser(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    membre = await services.membre(ctx.db, ctx.auth, membre_id)
    ctx.auth.require(Permission.PAIEMENT_ENREGISTRER, ctx.auth.active_organisation_id)
    cotisations = [c for c in (await services.cotisations_de(ctx.db, ctx.auth, membre_id)).content
                   if c.montant_restant > 0 and c.statut != StatutCotisation.ANNULEE
                   and c.organisation_id == ctx.auth.active_organisation_id]
    return ctx.render("encaisser.html", membre=membre, cotisations=cotisations, methodes=METHODES_GUICHET,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()),
                      saisi=ctx.saisi("montant", "methode", "reference", "avance"),
                      coches=ctx.typed_list("cotisation"))


@page("/membres/{id}/encaisser", RS_TRESORERIE, methods=("POST",), again=encaisser)
async def encaisser_post(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    organisation_id = ctx.auth.active_organisation_id
    if organisation_id is None:
        raise InvalidInput("Choisissez l'organisation pour laquelle vous encaissez")
    assert ctx.form is not None
    cibles = [parse_id(str(v)) for v in ctx.form.getlist("cotisation")]
    avance = ctx.field("avance") == "1"
    if not cibles and not avance:
        raise InvalidInput("Cochez au moins une cotisation à régler, ou « Avance » pour garder l'argent en avoir")
    paiement_id = await services.encaisser(
        ctx.db, ctx.auth, ctx.request, ctx.field("idempotency_key"), membre_id, organisation_id,
        ctx.montant(), ctx.field("methode") or "ESPECES", ctx.field("reference"), cibles,
        avance)
    return redirect(f"/paiements/{paiement_id}")


@page("/membres/{id}/avoir/imputer", RS_TRESORERIE, methods=("POST",), again="/membres/{id}")
async def imputer_avoir(ctx: Ctx) -> Response:
    membre_id = parse_id(ctx.request.path_params["id"])
    organisation_id = ctx.auth.active_organisation_id
    if organisation_id is None:
        raise InvalidInput("Choisissez l'organisation pour laquelle vous imputez l'avoir")
    await services.imputer_avoir(ctx.db, ctx.auth, ctx.field("idempotency_key"), membre_id, organisation_id)
    return redirect(f"/membres/{membre_id}?fait=avoir")


@page("/paiements/{id}", RS_PAIEMENT_READ)
async def paiement(ctx: Ctx) -> Response:
    found = await services.paiement(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]))
    # Undoing: asked by the treasury (paiement.annuler), approved on /console/annulations.
    peut_demander = RS_TRESORERIE.allows(ctx.auth.roles) and ctx.can(Permission.PAIEMENT_ANNULER,
                                                                      found.organisation_id)
    demande = (await services_annulations.demande_en_attente(ctx.db, ctx.auth, found.id)
               if RS_TRESORERIE_READ.allows(ctx.auth.roles) else None)
    return ctx.render("paiement.html", paiement=found, peut_demander=peut_demander, demande=demande,
                      cle=str(uuid.uuid4()))


@page("/paiements/{id}/recu", RS_PAIEMENT_READ)
async def recu(ctx: Ctx) -> Response:
    numero, pdf = await services.recu_pdf(ctx.db, ctx.auth, ctx.request, parse_id(ctx.request.path_params["id"]))
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="recu-{numero}.pdf"', "Cache-Control": "no-store"})


@page("/declarations", RS_TRESORERIE_READ)
async def declarations(ctx: Ctx) -> Response:
    found = await services.paiements(ctx.db, ctx.auth, statut=StatutPaiement.EN_ATTENTE, size=100)
    rows = [p for p in found.content if p.methode != MethodePaiement.WAVE]
    peut_confirmer = ctx.can(Permission.PAIEMENT_ENREGISTRER)
    org = ctx.auth.active_organisation_id
    # The treasuries a confirmation may name (the payment's organisation's active ones, filtered in the page).
    tresoreries = ([t for t in await services_tresoreries.tresoreries(ctx.db, ctx.auth, org) if t.actif]
                   if peut_confirmer and org is not None else [])
    # Who declared (each member read once, as the API's GET /api/membres/{id} would show him).
    noms: dict[uuid.UUID, str] = {}
    for p in rows:
        if p.membre_id not in noms:
            m = await services.membre(ctx.db, ctx.auth, p.membre_id)
            noms[p.membre_id] = f"{m.prenom} {m.nom} ({m.numero_membre})"
    return ctx.render("declarations.html", declarations=rows, cle=str(uuid.uuid4()), peut_confirmer=peut_confirmer,
                      methodes=METHODES_GUICHET, tresoreries=tresoreries, noms=noms)


@page("/declarations/{id}/confirmer", RS_TRESORERIE, methods=("POST",), again="/declarations")
async def confirmer(ctx: Ctx) -> Response:
    tresorerie = ctx.field("tresorerie")
    await services.confirmer(ctx.db, ctx.auth, ctx.field("idempotency_key"), parse_id(ctx.request.path_params["id"]),
                             ctx.field("reference"), ctx.field("methode") or None,
                             parse_id(tresorerie) if tresorerie else None)
    return redirect(f"/paiements/{ctx.request.path_params['id']}")


@page("/declarations/{id}/rejeter", RS_TRESORERIE, methods=("POST",), again="/declarations")
async def rejeter(ctx: Ctx) -> Response:
    motif = ctx.field("motif")
    if len(motif) < 3:
        raise InvalidInput("Indiquez le motif du rejet (3 caractères au moins)")
    await services.rejeter(ctx.db, ctx.auth, parse_id(ctx.request.path_params["id"]), motif)
    return redirect("/declarations")
