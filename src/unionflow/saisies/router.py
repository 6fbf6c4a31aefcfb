"""Manual entries: the spec's entry route, which opens a request when the entry touches money, and the
extension routes that list, approve, reject and withdraw those requests (docs/decisions.md)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Path, Query
from fastapi.responses import JSONResponse

from unionflow.comptabilite.router import ECRITURE_REGLES, ECRITURE_WRITE
from unionflow.comptabilite.schemas import CreateEcritureComptableRequest, EcritureComptableResponse
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ECRITURE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ, RS_WRITE
from unionflow.core.routing import area_router
from unionflow.models.approbation import StatutDemande
from unionflow.saisies import operations
from unionflow.saisies.schemas import ApprouverEcritureRequest, DemandeEcritureResponse, RejeterEcritureRequest
from unionflow.saisies.service import SaisieService

ecritures = area_router("/api/comptabilite/ecritures", "Comptabilité")
router = area_router("/api/comptabilite/demandes-ecritures", "Comptabilité")
routers = (ecritures, router)

QUATRE_YEUX = ("Quatre yeux (extension du comportement): une écriture qui touche un compte de trésorerie (classe 5), "
               "les avances des membres (4191) ou un compte marqué `sousControle` par l'organisation n'est pas "
               "passée: elle devient une demande (réponse 202) qu'une seconde personne détenant "
               "`ecriture.approuver` (trésorier, président, administrateur de l'organisation), jamais le demandeur, "
               "approuve via `POST /api/comptabilite/demandes-ecritures/{id}/approuver`. Elle est alors vérifiée à "
               "nouveau comme si elle était saisie à ce moment (comptes actifs, période ouverte) et la règle des "
               "trésoreries tient sous le verrou de leur ligne: une caisse jamais sous zéro, une banque jamais "
               "au-delà de son découvert autorisé (400 avec le solde). Les autres écritures restent l'acte d'une "
               "personne, tracé.")
EXTENSION = "Extension, hors spécification: écritures manuelles sous quatre yeux. "
ID = Path(..., alias="id")
_202: dict[int | str, dict[str, Any]] = {
    202: {"model": DemandeEcritureResponse, "description": "Demande ouverte, en attente d'approbation"}}


@ecritures.post("", response_model=EcritureComptableResponse, responses={**_202, **problems(404, 409)},
                summary="Passer une écriture comptable",
                description=ECRITURE_REGLES + " " + ECRITURE_WRITE + " " + QUATRE_YEUX
                + " En-tête Idempotency-Key recommandé.")
async def create_ecriture(data: CreateEcritureComptableRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_WRITE),
                          idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.saisir(session, auth, idem, data))


@router.get("", response_model=list[DemandeEcritureResponse], responses=problems(404),
            summary="Demandes d'écriture d'une organisation",
            description=EXTENSION + "Bureau de l'organisation et commissaire aux comptes (lecture). Plus récentes "
                        "d'abord.")
async def lister(session: SessionDep, organisation_id: uuid.UUID = Query(..., alias="organisationId"),
                 statut: StatutDemande | None = None,
                 auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[DemandeEcritureResponse]:
    return await SaisieService(session, auth).lister(organisation_id, statut)


@router.get("/{id}", response_model=DemandeEcritureResponse, responses=problems(404),
            summary="Consulter une demande d'écriture", description=EXTENSION)
async def consulter(session: SessionDep, demande_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> DemandeEcritureResponse:
    return await SaisieService(session, auth).obtenir(demande_id)


@router.post("/{id}/approuver", response_model=DemandeEcritureResponse, responses=problems(404, 409),
             summary="Approuver une demande d'écriture (l'écriture est alors passée)",
             description=EXTENSION + "Permission ecriture.approuver, jamais le demandeur (403); demande EN_ATTENTE "
                         "(400 sinon). " + QUATRE_YEUX + " En-tête Idempotency-Key recommandé.")
async def approuver(data: ApprouverEcritureRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_ECRITURE_DECIDE),
                    idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: SaisieService(session, auth).approuver(demande_id, data.commentaire))


@router.post("/{id}/rejeter", response_model=DemandeEcritureResponse, responses=problems(404),
             summary="Rejeter une demande d'écriture",
             description=EXTENSION + "Commentaire obligatoire; pas le demandeur (qui retire). Rien n'est passé.")
async def rejeter(data: RejeterEcritureRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_ECRITURE_DECIDE)) -> DemandeEcritureResponse:
    return await SaisieService(session, auth).rejeter(demande_id, data.commentaire)


@router.post("/{id}/retirer", response_model=DemandeEcritureResponse, responses=problems(404),
             summary="Retirer sa demande d'écriture", description=EXTENSION + "Le demandeur seul (403 sinon).")
async def retirer(session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_TRESORERIE)) -> DemandeEcritureResponse:
    return await SaisieService(session, auth).retirer(demande_id)
