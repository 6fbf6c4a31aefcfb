"""Manual entries and opening balances waiting for a second person, in the console.

Role sets are the API's for the same operations: ``RS_TRESORERIE_READ`` to list, ``RS_ECRITURE_DECIDE`` to approve
or reject, ``RS_TRESORERIE`` to withdraw one's own request. The four-eyes rules (never the requester, the treasury
rule at approval) live in ``SaisieService`` / ``ANouveauxService``, called as the API routers call them, the
approval under the same idempotency key mechanism (``IdempotentRequest.for_form``).
"""

from __future__ import annotations

import uuid

from starlette.responses import Response

from unionflow.comptabilite.schemas import CreateCompteComptableRequest, CreateEcritureComptableRequest
from unionflow.comptabilite.service import ComptabiliteService
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.errors import InvalidInput
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.montants import lire_montant
from unionflow.core.permissions import Permission
from unionflow.core.roles import RS_ECRITURE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ, RS_WRITE
from unionflow.models.approbation import StatutDemande, TypeDecision
from unionflow.saisies import operations
from unionflow.saisies.schemas import ApprouverEcritureRequest
from unionflow.saisies.service import SaisieService
from unionflow.tresoreries.ouverture_service import ANouveauxService
from unionflow.tresoreries.schemas import ApprouverANouveauxRequest

# Lines offered by the manual entry form (an entry of more lines goes through the API).
LIGNES_FORMULAIRE = 6
CHAMPS_LIGNE = ("compte", "debit", "credit", "libelle_ligne")

# Console path segment → the API's route for the approval (its idempotency operation).
ROUTES = {"ecritures": "POST /api/comptabilite/demandes-ecritures/{id}/approuver",
          "a-nouveaux": "POST /api/tresoreries/a-nouveaux/{id}/approuver"}


@page("/ecritures-a-approuver", RS_TRESORERIE_READ)
async def liste(ctx: Ctx) -> Response:
    org = ctx.organisation()
    ecritures = await SaisieService(ctx.db, ctx.auth).lister(org, None)
    a_nouveaux = await ANouveauxService(ctx.db, ctx.auth).lister(org)
    moi = ctx.auth.actor_name
    decideur = RS_ECRITURE_DECIDE.allows(ctx.auth.roles) and ctx.can(Permission.ECRITURE_APPROUVER, org)
    return ctx.render("ecritures_a_approuver.html", ecritures=ecritures[:30], a_nouveaux=a_nouveaux[:10], moi=moi,
                      decideur=decideur, attente=StatutDemande.EN_ATTENTE, cle=str(uuid.uuid4()),
                      fait=ctx.request.query_params.get("fait"))


async def _decider(ctx: Ctx, genre: str, demande_id: uuid.UUID, decision: str) -> None:
    commentaire = ctx.field("commentaire") or None
    if decision == "retirer":
        if genre == "ecritures":
            await SaisieService(ctx.db, ctx.auth).retirer(demande_id)
        else:
            await ANouveauxService(ctx.db, ctx.auth).retirer(demande_id)
        return
    if decision == "rejeter":
        if commentaire is None or len(commentaire) < 3:
            raise InvalidInput("Indiquez la raison du rejet (3 caractères au moins)")
        if genre == "ecritures":
            await SaisieService(ctx.db, ctx.auth).rejeter(demande_id, commentaire)
        else:
            await ANouveauxService(ctx.db, ctx.auth).decider(demande_id, TypeDecision.REJETEE, commentaire)
        return
    body = corps(commentaire=commentaire)
    idem = IdempotentRequest.for_form(ctx.db, ROUTES[genre], ctx.field("idempotency_key"), body, {"id": demande_id})
    if genre == "ecritures":
        data = ApprouverEcritureRequest.model_validate(body)
        await idem.answer(ctx.auth, lambda: SaisieService(ctx.db, ctx.auth).approuver(demande_id, data.commentaire))
    else:
        nouveaux = ApprouverANouveauxRequest.model_validate(body)
        await idem.answer(ctx.auth, lambda: ANouveauxService(ctx.db, ctx.auth).decider(
            demande_id, TypeDecision.APPROUVEE, nouveaux.commentaire))


def _cible(ctx: Ctx) -> tuple[str, uuid.UUID]:
    genre = ctx.request.path_params["genre"]
    if genre not in ROUTES:
        raise InvalidInput("Demande inconnue")
    return genre, parse_id(ctx.request.path_params["id"])


# Registered before the decision route, whose {decision} would match "retirer" too.
@page("/demandes/{genre:str}/{id}/retirer", RS_TRESORERIE, methods=("POST",), again="/ecritures-a-approuver")
async def retirer(ctx: Ctx) -> Response:
    genre, demande_id = _cible(ctx)
    await _decider(ctx, genre, demande_id, "retirer")
    return redirect("/ecritures-a-approuver?fait=retirer")


@page("/demandes/{genre:str}/{id}/{decision:str}", RS_ECRITURE_DECIDE, methods=("POST",),
      again="/ecritures-a-approuver")
async def decider(ctx: Ctx) -> Response:
    genre, demande_id = _cible(ctx)
    decision = ctx.request.path_params["decision"]
    if decision not in ("approuver", "rejeter"):
        raise InvalidInput("Décision inconnue")
    await _decider(ctx, genre, demande_id, decision)
    return redirect(f"/ecritures-a-approuver?fait={decision}")


@page("/ecritures/nouvelle", RS_TRESORERIE)
async def nouvelle(ctx: Ctx) -> Response:
    """The manual entry form: booked at once, or a request when it touches money (the API's rule, said above it)."""
    org = ctx.organisation()
    ctx.auth.require(Permission.COMPTABILITE_ECRIRE, org,
                     "Seuls l'administrateur et le trésorier de l'organisation tiennent sa comptabilité")
    service = ComptabiliteService(ctx.db, ctx.auth)
    comptes = [c for c in await service.lister_comptes(org, None) if c.actif]
    journaux = [j for j in await service.lister_journaux(org) if j.actif]
    lignes = [{champ: ctx.typed(f"{champ}_{i}") for champ in CHAMPS_LIGNE} for i in range(LIGNES_FORMULAIRE)]
    return ctx.render("ecriture_nouvelle.html", comptes=comptes, journaux=journaux, lignes=lignes,
                      cle=ctx.typed("idempotency_key") or str(uuid.uuid4()),
                      saisi=ctx.saisi("journal", "date", "libelle", "piece", "numero_compte", "libelle_compte"),
                      ouvert=ctx.request.query_params.get("ouvert"))


@page("/comptes", RS_WRITE, methods=("POST",), again=nouvelle)
async def ouvrir_compte(ctx: Ctx) -> Response:
    """Opens an account of the organisation's chart from the entry form (bank fees 631, rent 622…): the API's
    ``POST /api/comptabilite/comptes``, same service and rules; back to the form with the account offered."""
    org = ctx.organisation()
    data = CreateCompteComptableRequest.model_validate(corps(
        organisationId=str(org), numeroCompte=ctx.field("numero_compte"), libelle=ctx.field("libelle_compte")))
    compte = await ComptabiliteService(ctx.db, ctx.auth).creer_compte(data)
    return redirect(f"/ecritures/nouvelle?ouvert={compte.numero_compte}")


def _montant(texte: str | None, champ: str) -> str | None:
    return str(lire_montant(texte, champ)) if texte and texte.strip() else None


@page("/ecritures/nouvelle", RS_TRESORERIE, methods=("POST",), again=nouvelle)
async def nouvelle_post(ctx: Ctx) -> Response:
    lignes = []
    for i in range(LIGNES_FORMULAIRE):
        compte, debit, credit = (ctx.field(f"{champ}_{i}") for champ in CHAMPS_LIGNE[:3])
        if compte or debit or credit:
            # Amounts as people type them (« 1 500 »), the counter's rule; an empty side stays empty.
            lignes.append(corps(compteId=compte, debit=_montant(debit, f"debit_{i}"),
                                credit=_montant(credit, f"credit_{i}"), libelle=ctx.field(f"libelle_ligne_{i}")))
    body = corps(journalId=ctx.field("journal"), dateEcriture=ctx.field("date"), libelle=ctx.field("libelle"),
                 pieceReference=ctx.field("piece"), lignes=lignes)
    data = CreateEcritureComptableRequest.model_validate(body)
    idem = IdempotentRequest.for_form(ctx.db, operations.OPERATION_SAISIR, ctx.field("idempotency_key"), body)
    answer = await operations.saisir(ctx.db, ctx.auth, idem, data)
    if answer.status == 202:
        return redirect("/ecritures-a-approuver?fait=demandee")
    return redirect(f"/comptabilite?fait=ecriture&piece={answer.body['numeroPiece']}")
