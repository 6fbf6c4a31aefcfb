"""The console's calls into payouts, aid requests, finance approvals, accounting statements, the lock and its
reopenings, the monthly closing and Wave checkout: the same services as the API, with the same ``AuthContext``.

Nothing here decides who may do what: each service asks its permission (403) and its repository scopes the rows
(404). Money operations (payouts, Wave checkout) pass through the API's idempotence table under the form's key.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from unionflow.approbations.repository import ApprobationFilters
from unionflow.assemblee import tableaux as assemblee_documents
from unionflow.assemblee.inventaire import InventaireService
from unionflow.assemblee.service import AssembleeService
from unionflow.clotures.deverrouillage.schemas import CreateDeverrouillageRequest, DeverrouillageResponse
from unionflow.clotures.deverrouillage.service import DeverrouillageService
from unionflow.clotures.exercice.schemas import VerrouillageRequest, VerrouillageResponse
from unionflow.clotures.exercice.service import ClotureService
from unionflow.clotures.mensuelle.pdf import dossier
from unionflow.clotures.mensuelle.schemas import ClotureMensuelleResponse, CreateClotureMensuelleRequest
from unionflow.clotures.mensuelle.service import ClotureMensuelleService
from unionflow.comptabilite.etats import tableaux as etats_tableaux
from unionflow.comptabilite.etats.service import EtatsService
from unionflow.console.services import corps, settings_of
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidInput
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.pagination import Page, PageParams
from unionflow.demandes_aide.repository import DemandeFilters
from unionflow.demandes_aide.schemas import DemandeAideResponse
from unionflow.demandes_aide.service import DemandeAideService
from unionflow.documents.router import storage_of
from unionflow.federation import operations as federation_ops
from unionflow.federation.schemas import CreateQuotePartRequest
from unionflow.federation.service import FederationService
from unionflow.finance.approbations.schemas import ApprobationResponse
from unionflow.finance.approbations.service import GENRE, ApprobationService
from unionflow.models.demande_aide import StatutDemandeAide
from unionflow.paiements import operations as paiements_ops
from unionflow.paiements.annulations.router import _code as code_annulation
from unionflow.paiements.annulations.service import AnnulationService
from unionflow.paiements.checkout_schemas import CreateWaveCheckoutRequest
from unionflow.paiements.versements import operations as versements_ops
from unionflow.paiements.versements.bon_service import bon_de_decaissement
from unionflow.paiements.versements.repository import VersementFilters
from unionflow.paiements.versements.schemas import (
    ConfirmerVersementRequest,
    CreateVersementRequest,
    MotifRequest,
    VersementResponse,
)
from unionflow.paiements.versements.service import VersementService

# --- payouts and their approvals --------------------------------------------------------------------------------


def _versements(session: AsyncSession, auth: AuthContext, request: Request) -> VersementService:
    return VersementService(session, auth, request.app.state.settings)


async def versements(session: AsyncSession, auth: AuthContext, request: Request, statut: str | None,
                     size: int = 50, page: int = 0) -> Page[VersementResponse]:
    """GET /api/versements?organisationId=<active>[&statut=]: newest first, as the API lists them."""
    filters = VersementFilters(organisation_id=auth.active_organisation_id, statut=statut)
    return await _versements(session, auth, request).lister(filters, PageParams(page, size))


async def preparer_versement(session: AsyncSession, auth: AuthContext, request: Request, key: str,
                             data: CreateVersementRequest) -> uuid.UUID:
    body = data.model_dump(mode="json", by_alias=True, exclude_unset=True)
    idem = IdempotentRequest.for_form(session, versements_ops.OPERATION_CREER, key, body)
    answer = await versements_ops.creer(session, auth, settings_of(request), idem, data)
    return uuid.UUID(answer.body["id"])


async def verser_quote_part(session: AsyncSession, auth: AuthContext, request: Request, key: str,
                            data: CreateQuotePartRequest) -> uuid.UUID:
    body = data.model_dump(mode="json", by_alias=True, exclude_unset=True)
    idem = IdempotentRequest.for_form(session, federation_ops.OPERATION_VERSER_QUOTE_PART, key, body)
    answer = await federation_ops.verser_quote_part(session, auth, settings_of(request), idem, data)
    return uuid.UUID(answer.body["id"])


async def federation_du_payeur(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID) -> str | None:
    return await FederationService(session, auth).federation_du_payeur(organisation_id)


async def confirmer_versement(session: AsyncSession, auth: AuthContext, request: Request, key: str,
                              versement_id: uuid.UUID, reference: str | None) -> None:
    body = corps(referenceExterne=reference)
    data = ConfirmerVersementRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, versements_ops.OPERATION_CONFIRMER, key, body, {"id": versement_id})
    await versements_ops.confirmer(session, auth, settings_of(request), idem, versement_id, data)


async def annuler_versement(session: AsyncSession, auth: AuthContext, request: Request, key: str,
                            versement_id: uuid.UUID, motif: str) -> None:
    """POST /api/versements/{id}/annuler: the same service call and status as the route (a payout not yet sent is
    withdrawn at once; a manual one already paid opens an undo request), under the form's key when it has one."""
    body = corps(motif=motif)
    data = MotifRequest.model_validate(body)
    service = AnnulationService(session, auth, settings_of(request))
    idem = IdempotentRequest.for_form(session, "POST /api/versements/{id}/annuler", key or None, body,
                                      {"id": versement_id})
    await idem.answer(auth, lambda: service.annuler_versement(versement_id, data), code_annulation)


async def approbations_versements(session: AsyncSession, auth: AuthContext) -> dict[uuid.UUID, ApprobationResponse]:
    """GET /api/finance/approbations?typeObjet=VERSEMENT: the latest approval request of each payout."""
    filters = ApprobationFilters(GENRE, organisation_id=auth.active_organisation_id, nature="VERSEMENT")
    found = await ApprobationService(session, auth).lister(filters, PageParams(0, 100))
    latest: dict[uuid.UUID, ApprobationResponse] = {}
    for a in sorted(found.content, key=lambda a: a.date_demande):
        if a.objet_id is not None:
            latest[a.objet_id] = a
    return latest


async def autres_approbations(session: AsyncSession, auth: AuthContext) -> list[ApprobationResponse]:
    """GET /api/finance/approbations?statut=EN_ATTENTE: the pending requests about an aid disbursement or another
    expense (those about a payout are shown with their payout)."""
    filters = ApprobationFilters(GENRE, organisation_id=auth.active_organisation_id, statut="EN_ATTENTE")
    found = await ApprobationService(session, auth).lister(filters, PageParams(0, 15))
    return [a for a in found.content if a.type_objet != "VERSEMENT"]


async def decider_approbation(session: AsyncSession, auth: AuthContext, approbation_id: uuid.UUID, approuver: bool,
                              commentaire: str | None) -> None:
    service = ApprobationService(session, auth)
    if approuver:
        await service.approuver(approbation_id, commentaire)
    else:
        await service.rejeter(approbation_id, commentaire or "")


# --- aid requests -----------------------------------------------------------------------------------------------

async def demandes_aide(session: AsyncSession, auth: AuthContext,
                        statut: StatutDemandeAide) -> list[DemandeAideResponse]:
    """GET /api/demandes-aide/search?statut=: those the caller sees (staff: his organisations), of the active one."""
    rows, _ = await DemandeAideService(session, auth).lister(DemandeFilters(statut=statut.value), PageParams(0, 50))
    return [d for d in rows if auth.active_organisation_id in (None, d.organisation_id)]


async def aides_versees(session: AsyncSession, auth: AuthContext, request: Request) -> dict[uuid.UUID, Decimal]:
    """Per aid request, what its payouts (being paid or paid: EN_COURS, REUSSI) already carry: GET
    /api/versements?objetType=AIDE. Shown beside each granted aid; the payouts service checks the cap itself."""
    filters = VersementFilters(organisation_id=auth.active_organisation_id, objet_type="AIDE")
    found = await _versements(session, auth, request).lister(filters, PageParams(0, 200))
    engage: dict[uuid.UUID, Decimal] = {}
    for v in found.content:
        if v.objet_id is not None and v.statut in ("EN_COURS", "REUSSI"):
            engage[v.objet_id] = engage.get(v.objet_id, Decimal(0)) + v.montant
    return engage


async def demande_aide(session: AsyncSession, auth: AuthContext, demande_id: uuid.UUID) -> DemandeAideResponse:
    return await DemandeAideService(session, auth).obtenir(demande_id)


async def decider_aide(session: AsyncSession, auth: AuthContext, demande_id: uuid.UUID, approuver: bool,
                       motif: str | None, montant: Decimal | None) -> None:
    statut = StatutDemandeAide.APPROUVEE if approuver else StatutDemandeAide.REJETEE
    await DemandeAideService(session, auth).decider(demande_id, statut, motif, montant)


# --- Wave checkout (member) -------------------------------------------------------------------------------------

async def payer_wave(session: AsyncSession, auth: AuthContext, request: Request, key: str, organisation_id: uuid.UUID,
                     cotisation_id: uuid.UUID) -> str:
    """POST /api/paiements/wave/checkout for one dues of the caller; returns Wave's launch URL."""
    body = corps(organisationId=str(organisation_id), cibles=[{"cotisationId": str(cotisation_id)}])
    data = CreateWaveCheckoutRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, paiements_ops.OPERATION_CHECKOUT_WAVE, key, body)
    answer = await paiements_ops.ouvrir_checkout_wave(session, auth, settings_of(request), idem, data)
    return str(answer.body["waveLaunchUrl"])


# --- statements, lock, reopenings, monthly closing --------------------------------------------------------------

ETATS: dict[str, tuple[str, Callable[[Any], tableaux.Tableau]]] = {
    "balance": ("balance-generale", etats_tableaux.balance), "journal": ("journal", etats_tableaux.journal),
    "grand-livre": ("grand-livre", etats_tableaux.grand_livre), "bilan": ("bilan", etats_tableaux.bilan),
    "compte-resultat": ("compte-de-resultat", etats_tableaux.compte_resultat)}


async def etat(session: AsyncSession, auth: AuthContext, nom: str, organisation_id: uuid.UUID, debut: date | None,
               fin: date | None, fmt: str) -> tuple[bytes, str, str]:
    """GET /api/comptabilite/etats/{nom}?format=pdf|xlsx: (content, media type, file name)."""
    service = EtatsService(session, auth)
    if nom == "bilan":
        found: Any = await service.bilan(organisation_id, fin)
    elif nom == "grand-livre":
        found = await service.grand_livre(organisation_id, debut, fin, None)
    elif nom == "journal":
        found = await service.journal(organisation_id, debut, fin, None)
    elif nom == "compte-resultat":
        found = await service.compte_resultat(organisation_id, debut, fin)
    else:
        found = await service.balance(organisation_id, debut, fin)
    fichier, tableau = ETATS[nom]
    table = tableau(found)
    table.edite_par = auth.actor_name
    content, media = tableaux.rendu(table, fmt)
    return content, media, f"{fichier}-{getattr(found, 'date_fin', date.today()):%Y-%m-%d}.{fmt}"


async def fin_exercice(session: AsyncSession, auth: AuthContext, document: str, organisation_id: uuid.UUID,
                       exercice: int, date_assemblee: date | None) -> tuple[bytes, str]:
    """GET /api/comptabilite/etats/inventaire?format=pdf, or /api/comptabilite/assemblee?format=pdf: (PDF, file
    name)."""
    if document == "inventaire":
        table = assemblee_documents.inventaire(await InventaireService(session, auth).inventaire(organisation_id,
                                                                                                 exercice))
        table.edite_par = auth.actor_name
        return tableaux.pdf(table), f"livre-inventaire-{exercice}.pdf"
    if date_assemblee is None:
        raise InvalidInput("Date de l'assemblée: date requise (AAAA-MM-JJ)")
    dossier = await AssembleeService(session, auth).dossier(organisation_id, exercice, date_assemblee)
    return assemblee_documents.dossier_pdf(dossier, auth.actor_name), f"dossier-assemblee-generale-{exercice}.pdf"


async def verrou(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID) -> VerrouillageResponse:
    return await ClotureService(session, auth).verrou(organisation_id)


async def verrouiller(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID, jusqu_au: date) -> None:
    await ClotureService(session, auth).verrouiller(VerrouillageRequest(organisation_id=organisation_id,
                                                                        date_verrouillage=jusqu_au))


async def deverrouillages(session: AsyncSession, auth: AuthContext,
                          organisation_id: uuid.UUID) -> list[DeverrouillageResponse]:
    return await DeverrouillageService(session, auth).lister(organisation_id)


async def demander_deverrouillage(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID,
                                  jusqu_au: date, motif: str) -> None:
    await DeverrouillageService(session, auth).demander(CreateDeverrouillageRequest(
        organisation_id=organisation_id, date_verrouillage=jusqu_au, motif=motif))


async def decider_deverrouillage(session: AsyncSession, auth: AuthContext, demande_id: uuid.UUID, decision: str,
                                 commentaire: str | None) -> None:
    service = DeverrouillageService(session, auth)
    if decision == "approuver":
        await service.approuver(demande_id, commentaire)
    elif decision == "rejeter":
        await service.rejeter(demande_id, commentaire or "")
    else:
        await service.annuler(demande_id)


async def clotures(session: AsyncSession, auth: AuthContext,
                   organisation_id: uuid.UUID) -> list[ClotureMensuelleResponse]:
    return await ClotureMensuelleService(session, auth).lister(organisation_id)


async def soldes_livres(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID,
                        fin: date) -> dict[str, Decimal | str]:
    """What the books say at the month's end (cash 571, bank 521, the Wave account): shown beside the closing form.
    Called after ``clotures`` (which answers 404 for an organisation whose books the caller does not see)."""
    livres = await ClotureMensuelleService(session, auth).soldes(organisation_id, fin)
    return {"caisse": livres.caisse, "banque": livres.banque, "wave": livres.wave, "compte_wave": livres.compte_wave}


async def cloturer_mois(session: AsyncSession, auth: AuthContext, data: CreateClotureMensuelleRequest) -> None:
    await ClotureMensuelleService(session, auth).cloturer(data)


async def dossier_cloture(session: AsyncSession, auth: AuthContext, cloture_id: uuid.UUID) -> tuple[bytes, str]:
    service = ClotureMensuelleService(session, auth)
    cloture = await service.get(cloture_id)
    return await dossier(session, auth, cloture), f"cloture-{cloture.annee}-{cloture.mois:02d}.pdf"


async def bon_versement(session: AsyncSession, auth: AuthContext, request: Request,
                        versement_id: uuid.UUID) -> tuple[str, bytes]:
    """GET /api/versements/{id}/bon: (payout number, PDF)."""
    return await bon_de_decaissement(session, auth, settings_of(request), versement_id, storage_of(request))
