"""Money undone by two people: the spec's undo routes, which now open a request, and the
extension routes that list, approve, reject and withdraw requests (docs/decisions.md "quatre yeux")."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ANNULATION_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.models.annulation import StatutDemandeAnnulation
from unionflow.paiements.annulations.schemas import (
    ApprouverAnnulationRequest,
    ContrepasserEcritureRequest,
    DemandeAnnulationResponse,
    RejeterAnnulationRequest,
    RembourserAvoirRequest,
)
from unionflow.paiements.annulations.service import AnnulationService
from unionflow.paiements.schemas import MotifRequest, PaiementResponse
from unionflow.paiements.versements.schemas import MotifRequest as MotifVersementRequest
from unionflow.paiements.versements.schemas import VersementResponse

paiements = area_router("/api/paiements", "Paiements")
versements = area_router("/api/versements", "Versements")
ecritures = area_router("/api/comptabilite/ecritures", "Comptabilité")
avoirs = area_router("/api/avoirs", "Paiements")
router = area_router("/api/annulations", "Paiements")
routers = (paiements, versements, ecritures, avoirs, router)

QUATRE_YEUX = ("Quatre yeux (extension du comportement): une personne demande avec un motif, une seconde "
               "personne détenant `annulation.approuver` (trésorier, président, administrateur de l'organisation) "
               "approuve via `POST /api/annulations/{id}/approuver`, jamais le demandeur ni la personne qui a "
               "enregistré ou confirmé l'argent (403). À partir de `finance.approbation.seuil_annulation`, une "
               "demande d'approbation (finance, type ANNULATION) est ouverte et doit être APPROUVEE d'abord. Tant "
               "que la demande attend, rien ne bouge: ni extourne, ni statut, ni remboursement Wave. Réponse 202: "
               "la demande en attente (409 si une demande attend déjà pour cet objet).")
EXTENSION = ("Extension, hors spécification: demandes d'annulation, de remboursement et de "
             "contrepassation décidées par une seconde personne. ")
ID = Path(..., alias="id")
_202: dict[int | str, dict[str, Any]] = {
    202: {"model": DemandeAnnulationResponse, "description": "Demande ouverte, en attente d'approbation"}}


def _code(result: BaseModel) -> int:
    return 202 if isinstance(result, DemandeAnnulationResponse) else 200


@paiements.post("/{id}/annuler", response_model=PaiementResponse, responses={**_202, **problems(404, 409, 422,
                                                                                                 502, 503)},
                summary="Annuler un paiement (saisie erronée ou session Wave en attente)",
                description="Trésorerie de l'organisation. Paiement EN_ATTENTE (déclaration ou session Wave): "
                            "annulé tout de suite (session expirée chez Wave), 200. Paiement validé (hors Wave "
                            "encaissé, 400: utiliser /rembourser): 202, demande d'annulation; à l'approbation le "
                            "paiement passe ANNULE, les cotisations et adhésions réglées reviennent à leur état "
                            "antérieur, l'écriture est extournée, le reçu reste dans sa série marqué annulé, le "
                            "membre est notifié. " + QUATRE_YEUX)
async def cancel_paiement(id: uuid.UUID, data: MotifRequest, session: SessionDep, request: Request,
                          auth: AuthContext = authorize(RS_TRESORERIE),
                          idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth, request.app.state.settings)
    return await idem.run(auth, lambda: service.annuler_paiement(id, data), _code)


@paiements.post("/{id}/rembourser", status_code=202, response_model=DemandeAnnulationResponse,
                responses=problems(404, 409, 422, 502, 503), summary="Rembourser un paiement validé",
                description="Trésorerie de l'organisation: ouvre la demande de remboursement (202). À l'approbation: "
                            "paiement Wave remboursé chez Wave d'abord (échec → 502/503, la demande reste en "
                            "attente); manuel: argent rendu hors système. Statut REMBOURSE, affectations reprises, "
                            "écriture extournée, reçu de remboursement numéroté dans sa série (RMB, "
                            "`GET /api/paiements/{id}/recu-remboursement`), membre notifié. " + QUATRE_YEUX)
async def refund_paiement(id: uuid.UUID, data: MotifRequest, session: SessionDep, request: Request,
                          auth: AuthContext = authorize(RS_TRESORERIE),
                          idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth, request.app.state.settings)
    return await idem.run(auth, lambda: service.rembourser_paiement(id, data), 202)


@versements.post("/{id}/annuler", response_model=VersementResponse,
                 responses={**_202, **problems(404, 409, 422)}, summary="Annuler un versement",
                 description="Versement pas encore envoyé (EN_COURS): annulé tout de suite, 200 (rien n'est sorti). "
                             "Versement manuel exécuté (REUSSI): 202, demande d'annulation; à l'approbation il passe "
                             "ANNULE et son écriture est contrepassée (l'argent est revenu en trésorerie). Versement "
                             "Wave exécuté: 400. " + QUATRE_YEUX)
async def cancel_versement(id: uuid.UUID, data: MotifVersementRequest, session: SessionDep, request: Request,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth, request.app.state.settings)
    return await idem.run(auth, lambda: service.annuler_versement(id, data), _code)


@ecritures.post("/{id}/contrepasser", status_code=202, response_model=DemandeAnnulationResponse,
                responses=problems(404, 409, 422), summary="Demander la contrepassation d'une écriture manuelle",
                description=EXTENSION + "Permission comptabilite.ecrire. Écriture manuelle seulement (celle d'un "
                            "paiement ou d'un versement suit son argent: 400). À l'approbation, l'écriture miroir "
                            "(débit et crédit inversés, pièce `CTP-<numéro>`) est passée à la date du jour. "
                            + QUATRE_YEUX)
async def reverse_ecriture(data: ContrepasserEcritureRequest, session: SessionDep, ecriture_id: uuid.UUID = ID,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth)
    return await idem.run(auth, lambda: service.contrepasser_ecriture(ecriture_id, data.motif), 202)


@avoirs.post("/rembourser", status_code=202, response_model=DemandeAnnulationResponse,
             responses=problems(403, 404, 409, 422), summary="Demander le remboursement de l'avoir d'un membre",
             description="Extension. Trésorerie de l'organisation (permission paiement.annuler): ouvre "
                         "une demande REMBOURSEMENT_AVOIR (202), au plus l'avoir du membre (400). À l'approbation "
                         "par une seconde personne, l'avoir est relu sous verrou (400 s'il ne suffit plus), le "
                         "remboursement est pris sur l'argent le plus ancien, numéroté dans la série RMB de "
                         "l'organisation et comptabilisé débit 4191 / crédit de la trésorerie par laquelle l'argent "
                         "était entré. " + QUATRE_YEUX)
async def rembourser_avoir(data: RembourserAvoirRequest, session: SessionDep, request: Request,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth, request.app.state.settings)
    return await idem.run(auth, lambda: service.rembourser_avoir(data), 202)


@router.get("", response_model=list[DemandeAnnulationResponse],
            summary="Demandes d'annulation, de remboursement et de contrepassation",
            description=EXTENSION + "Bureau de l'organisation (lecture). Plus récentes d'abord, 500 au plus.")
async def lister(session: SessionDep, organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                 statut: StatutDemandeAnnulation | None = None,
                 auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[DemandeAnnulationResponse]:
    return await AnnulationService(session, auth).lister(organisation_id, statut)


@router.get("/{id}", response_model=DemandeAnnulationResponse, responses=problems(404),
            summary="Consulter une demande d'annulation", description=EXTENSION)
async def consulter(session: SessionDep, demande_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> DemandeAnnulationResponse:
    return await AnnulationService(session, auth).obtenir(demande_id)


@router.post("/{id}/approuver", response_model=DemandeAnnulationResponse, responses=problems(404, 409, 422, 502,
                                                                                              503),
             summary="Approuver une demande d'annulation (l'argent est alors défait)",
             description=EXTENSION + "Permission annulation.approuver; ni le demandeur ni la personne qui a "
                         "enregistré ou confirmé l'argent (403); demande EN_ATTENTE (400 sinon); au-delà du seuil, "
                         "la demande d'approbation liée doit être APPROUVEE (400). Exécute l'annulation dans la même "
                         "transaction. En-tête Idempotency-Key recommandé.")
async def approuver(data: ApprouverAnnulationRequest, session: SessionDep, request: Request,
                    demande_id: uuid.UUID = ID, auth: AuthContext = authorize(RS_ANNULATION_DECIDE),
                    idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = AnnulationService(session, auth, request.app.state.settings)
    return await idem.run(auth, lambda: service.approuver(demande_id, data.commentaire))


@router.post("/{id}/rejeter", response_model=DemandeAnnulationResponse, responses=problems(404),
             summary="Rejeter une demande d'annulation",
             description=EXTENSION + "Commentaire obligatoire; pas le demandeur (qui retire). Rien ne bouge.")
async def rejeter(data: RejeterAnnulationRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_ANNULATION_DECIDE)) -> DemandeAnnulationResponse:
    return await AnnulationService(session, auth).rejeter(demande_id, data.commentaire)


@router.post("/{id}/retirer", response_model=DemandeAnnulationResponse, responses=problems(404),
             summary="Retirer sa demande d'annulation", description=EXTENSION + "Le demandeur seul (403 sinon).")
async def retirer(session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_TRESORERIE)) -> DemandeAnnulationResponse:
    return await AnnulationService(session, auth).retirer(demande_id)
