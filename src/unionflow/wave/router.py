from __future__ import annotations

import uuid

from fastapi import Depends, Query, Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.wave.schemas import (
    CompteWaveResponse,
    CreateCompteWaveRequest,
    SoldeWaveResponse,
    TransactionWaveResponse,
    UpdateCompteWaveRequest,
)
from unionflow.wave.service import CompteWaveService

router = area_router("/api/wave", "Wave Mobile Money")

TYPES = "CHECKOUT, PAIEMENT_RECU, PAIEMENT_ECHOUE, EXPIRATION, REMBOURSEMENT, VERSEMENT, ANOMALIE"


@router.get("/comptes", response_model=list[CompteWaveResponse], summary="Comptes Wave des organisations",
            description="Clé API et secret de webhook ne sont jamais renvoyés: seulement un indice masqué.")
async def list_comptes(session: SessionDep, response: Response, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                       organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                       ) -> list[CompteWaveResponse]:
    comptes = await CompteWaveService(session, auth).lister(organisation_id)
    set_total_header(response, len(comptes))
    return comptes


@router.post("/comptes", status_code=201, response_model=CompteWaveResponse, responses=problems(404, 409),
             summary="Enregistrer le compte Wave d'une organisation",
             description="Quand un compte actif a une clé API, les sessions de paiement et les versements de "
                         "l'organisation passent par lui (sinon par le compte de l'union); son secret de webhook "
                         "est accepté pour vérifier les signatures.")
async def create_compte(data: CreateCompteWaveRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_TRESORERIE)) -> CompteWaveResponse:
    return await CompteWaveService(session, auth).creer(data)


@router.get("/comptes/{id}", response_model=CompteWaveResponse, responses=problems(404),
            summary="Consulter un compte Wave")
async def get_compte(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> CompteWaveResponse:
    return await CompteWaveService(session, auth).obtenir(id)


@router.put("/comptes/{id}", response_model=CompteWaveResponse, responses=problems(404, 409),
            summary="Modifier un compte Wave (rotation de clé, désactivation)",
            description="Libellé, numéro, clé API, secret de webhook (null: effacé), `statut` INACTIF (les "
                        "paiements et versements passent alors par le compte de l'union) ou ACTIF. Permission "
                        "`wave_compte.gerer` de l'organisation du compte (403 sinon).")
async def update_compte(id: uuid.UUID, data: UpdateCompteWaveRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_TRESORERIE)) -> CompteWaveResponse:
    return await CompteWaveService(session, auth).modifier(id, data)


@router.delete("/comptes/{id}", status_code=204, responses=problems(404), summary="Retirer un compte Wave",
               description="Le compte est désactivé et ses secrets effacés (les paiements passés le référencent).")
async def delete_compte(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE)) -> Response:
    await CompteWaveService(session, auth).supprimer(id)
    return Response(status_code=204)


@router.get("/transactions", response_model=Page[TransactionWaveResponse],
            summary="Journal des opérations Wave", description=f"Types: {TYPES}. Plus récentes d'abord.")
async def list_transactions(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                            params: PageParams = Depends(paging(20)),
                            organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                            type_transaction: str | None = Query(None, alias="typeTransaction", max_length=30),
                            paiement_id: uuid.UUID | None = Query(None, alias="paiementId"),
                            ) -> Page[TransactionWaveResponse]:
    return await CompteWaveService(session, auth).lister_transactions(params, organisation_id, type_transaction,
                                                                paiement_id)


@router.get("/solde", response_model=SoldeWaveResponse, responses=problems(404, 502, 503),
            summary="Solde du compte Wave de l'organisation, chez Wave et dans ses comptes",
            description="400 `regle-metier` sans organisation: préciser `organisationId` ou l'en-tête "
                        "X-Active-Organisation-Id. Extension: `soldeComptable` (compte Wave de "
                        "l'organisation), `soldeWave` (lu chez Wave), `ecart`, `comptePartage`, `origineMontant`. "
                        "Une organisation sans compte Wave propre utilise le compte partagé de l'union: son solde "
                        "Wave est celui de toutes les organisations; seuls les rôles de l'union le voient, les "
                        "autres reçoivent leurs propres chiffres (`montant` = solde comptable, `origineMontant` "
                        "COMPTABLE, `soldeWave` null) avec un message qui le dit, jamais un 404.")
async def solde(session: SessionDep, request: Request, auth: AuthContext = authorize(RS_TRESORERIE),
                organisation_id: uuid.UUID | None = Query(None, alias="organisationId")) -> SoldeWaveResponse:
    return await CompteWaveService(session, auth, request.app.state.settings).solde(organisation_id)
