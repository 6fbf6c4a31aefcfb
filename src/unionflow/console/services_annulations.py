"""The console's calls into the undoing of money (four eyes), the Wave statements and their reconciliation, and
the cancellation of dues: the same services as the API, with the same ``AuthContext``.

Nothing here decides who may do what: each service asks its permission (403 with its French reason) and its
repository scopes the rows (404). What the API takes under an Idempotency-Key (the undo requests, their approval,
a reconciliation, a dues cancellation) passes through the same idempotence table under the form's key.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from unionflow.comptabilite.service import ComptabiliteService
from unionflow.console.services import corps
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest
from unionflow.core.pagination import Page, PageParams
from unionflow.cotisations import operations as cotisations_ops
from unionflow.cotisations.schemas import AnnulationResponse, AnnulerCotisationsRequest
from unionflow.documents.router import storage_of
from unionflow.models.annulation import StatutDemandeAnnulation
from unionflow.models.wave import StatutLigneReleveWave
from unionflow.paiements.annulations.router import _code as code_annulation
from unionflow.paiements.annulations.schemas import ApprouverAnnulationRequest, DemandeAnnulationResponse
from unionflow.paiements.annulations.service import AnnulationService
from unionflow.paiements.rapprochement_wave import operations as wave_ops
from unionflow.paiements.rapprochement_wave.service import RapprochementWaveService
from unionflow.paiements.recus.service import RecuService
from unionflow.paiements.schemas import MotifRequest
from unionflow.wave.rapprochement_schemas import (
    ComptabiliserLigneWaveRequest,
    ImporterReleveWaveRequest,
    LigneReleveWaveResponse,
    ReleveWaveDetailResponse,
    ReleveWaveResponse,
)

# --- undoing money: one person asks, a second approves ---------------------------------------------------------


def _annulations(session: AsyncSession, auth: AuthContext, request: Request) -> AnnulationService:
    return AnnulationService(session, auth, request.app.state.settings)


async def demander(session: AsyncSession, auth: AuthContext, request: Request, key: str, paiement_id: uuid.UUID,
                   rembourser: bool, motif: str) -> None:
    """POST /api/paiements/{id}/annuler or /rembourser: opens the request (a pending declaration is closed)."""
    body = corps(motif=motif)
    data = MotifRequest.model_validate(body)
    service = _annulations(session, auth, request)
    verbe = "rembourser" if rembourser else "annuler"
    idem = IdempotentRequest.for_form(session, f"POST /api/paiements/{{id}}/{verbe}", key, body, {"id": paiement_id})
    if rembourser:
        await idem.answer(auth, lambda: service.rembourser_paiement(paiement_id, data), 202)
    else:
        await idem.answer(auth, lambda: service.annuler_paiement(paiement_id, data), code_annulation)


async def demandes(session: AsyncSession, auth: AuthContext, statut: StatutDemandeAnnulation | None
                   ) -> list[DemandeAnnulationResponse]:
    """GET /api/annulations?organisationId=<active>[&statut=]: newest first."""
    return await AnnulationService(session, auth).lister(auth.active_organisation_id, statut)


async def demande_en_attente(session: AsyncSession, auth: AuthContext,
                             paiement_id: uuid.UUID) -> DemandeAnnulationResponse | None:
    """The pending request about one payment, if any (shown on the payment's page)."""
    found = await AnnulationService(session, auth).lister(None, StatutDemandeAnnulation.EN_ATTENTE)
    return next((d for d in found if d.paiement_id == paiement_id), None)


async def decider(session: AsyncSession, auth: AuthContext, request: Request, key: str, demande_id: uuid.UUID,
                  decision: str, commentaire: str | None) -> None:
    service = _annulations(session, auth, request)
    if decision == "approuver":
        body = corps(commentaire=commentaire)
        data = ApprouverAnnulationRequest.model_validate(body)
        idem = IdempotentRequest.for_form(session, "POST /api/annulations/{id}/approuver", key, body,
                                          {"id": demande_id})
        await idem.answer(auth, lambda: service.approuver(demande_id, data.commentaire))
    elif decision == "rejeter":
        await service.rejeter(demande_id, commentaire or "")
    else:
        await service.retirer(demande_id)


async def recu_remboursement(session: AsyncSession, auth: AuthContext, request: Request,
                             paiement_id: uuid.UUID) -> tuple[str, bytes]:
    """GET /api/paiements/{id}/recu-remboursement: (number, PDF)."""
    return await RecuService(session, auth, request.app.state.settings).pdf_remboursement(paiement_id,
                                                                                         storage_of(request))


# --- Wave statements and their reconciliation ------------------------------------------------------------------

def _wave(session: AsyncSession, auth: AuthContext, request: Request) -> RapprochementWaveService:
    return RapprochementWaveService(session, auth, request.app.state.settings)


async def releves(session: AsyncSession, auth: AuthContext, page: int) -> Page[ReleveWaveResponse]:
    """GET /api/wave/releves?organisationId=<active>: newest first, 20 a page."""
    return await RapprochementWaveService(session, auth).lister(PageParams(page, 20), auth.active_organisation_id)


async def importer_releve(session: AsyncSession, auth: AuthContext, request: Request, organisation_id: uuid.UUID,
                          nom: str | None, contenu: bytes) -> uuid.UUID:
    """POST /api/wave/releves (the CSV exported from Wave Business); the same file twice is the service's 409."""
    return (await _wave(session, auth, request).importer_csv(organisation_id, nom, contenu)).id


async def importer_jour(session: AsyncSession, auth: AuthContext, request: Request, organisation_id: uuid.UUID,
                        jour: date) -> uuid.UUID:
    """POST /api/wave/releves/depuis-wave: one day read from Wave's API with the organisation's key."""
    data = ImporterReleveWaveRequest(organisation_id=organisation_id, date=jour)
    return (await _wave(session, auth, request).importer_api(data)).id


async def releve(session: AsyncSession, auth: AuthContext, releve_id: uuid.UUID) -> ReleveWaveDetailResponse:
    return await RapprochementWaveService(session, auth).obtenir(releve_id)


async def lignes(session: AsyncSession, auth: AuthContext, releve_id: uuid.UUID,
                 statut: StatutLigneReleveWave | None, size: int, page: int = 0) -> Page[LigneReleveWaveResponse]:
    """GET /api/wave/releves/{id}/lignes[?statut=]."""
    return await RapprochementWaveService(session, auth).lignes(releve_id, PageParams(page, size), statut)


async def rapprocher(session: AsyncSession, auth: AuthContext, key: str, releve_id: uuid.UUID) -> None:
    """POST /api/wave/releves/{id}/rapprocher under the form's Idempotency-Key (fees are booked once)."""
    idem = IdempotentRequest.for_form(session, wave_ops.OPERATION_RAPPROCHER, key, None, {"id": releve_id})
    await wave_ops.rapprocher(session, auth, idem, releve_id)


async def contreparties(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID) -> list[Any]:
    """The accounts an unknown Wave line may be booked to: the organisation's active accounts outside class 5."""
    return [c for c in await ComptabiliteService(session, auth).lister_comptes(organisation_id, None)
            if c.actif and c.classe != 5]


async def comptabiliser_ligne(session: AsyncSession, auth: AuthContext, key: str, releve_id: uuid.UUID,
                              ligne_id: uuid.UUID, compte_id: str, libelle: str) -> None:
    """POST /api/wave/releves/{id}/lignes/{ligneId}/comptabiliser: a four-eyes entry request (202)."""
    body = corps(compteId=compte_id, libelle=libelle)
    data = ComptabiliserLigneWaveRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, wave_ops.OPERATION_COMPTABILISER_LIGNE, key, body,
                                      {"id": releve_id, "ligneId": ligne_id})
    await wave_ops.comptabiliser_ligne(session, auth, idem, releve_id, ligne_id, data)


# --- dues cancellation ---------------------------------------------------------------------------------------------

async def annuler_cotisations(session: AsyncSession, auth: AuthContext, key: str, cotisation_ids: list[uuid.UUID],
                              motif: str) -> AnnulationResponse:
    """POST /api/cotisations/annulation with ``cotisationIds``: all or nothing, refused with the reason."""
    body = corps(cotisationIds=[str(c) for c in cotisation_ids], motif=motif)
    data = AnnulerCotisationsRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, cotisations_ops.OPERATION_ANNULER, key, body)
    return AnnulationResponse.model_validate((await cotisations_ops.annuler(session, auth, idem, data)).body)
