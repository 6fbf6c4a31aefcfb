from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.approbations.repository import ApprobationFilters
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_FINANCE_DECIDE, RS_FINANCE_READ, RS_FINANCE_WRITE
from unionflow.core.routing import area_router
from unionflow.finance.approbations.schemas import (
    AnnulerRequest,
    ApprobationResponse,
    ApprouverRequest,
    CreateApprobationRequest,
    RejeterRequest,
    StatutApprobation,
    TypeObjetApprobation,
)
from unionflow.finance.approbations.service import GENRE, ApprobationService, statut_demande

router = area_router("/api/finance/approbations", "Finance - Approvals")

DECIDEUR = ("Réservé au PRESIDENT et à l'ADMIN_ORGANISATION de l'organisation; jamais le demandeur, et jamais deux "
            "fois la même personne sur une demande (principe des quatre yeux, 403).")


@router.post("", status_code=201, response_model=ApprobationResponse, responses=problems(404, 409),
             summary="Demander l'approbation d'une transaction",
             description="VERSEMENT (versement EN_COURS non envoyé; montant = celui du versement), AIDE (demande "
                         "d'aide APPROUVEE; montant ≤ montant accordé, par défaut celui-ci) ou AUTRE (montant et "
                         "motif). Un seul objet n'a qu'une demande en attente ou approuvée (409). Deux approbateurs "
                         "sont requis à partir de `finance.approbation.seuil_double` (configuration, 2 000 000 XOF "
                         "par défaut), un sinon. Un versement d'au moins `finance.approbation.seuil_versement` "
                         "(500 000 XOF) ouvre sa demande automatiquement à sa création.")
async def create_approbation(data: CreateApprobationRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> ApprobationResponse:
    return await ApprobationService(session, auth).creer(data)


@router.get("", response_model=Page[ApprobationResponse], summary="Lister les demandes d'approbation",
            description="Plus récentes d'abord; organisations du bureau de l'appelant (tout pour ADMIN).")
async def list_approbations(session: SessionDep, auth: AuthContext = authorize(RS_FINANCE_READ),
                            params: PageParams = Depends(paging(20)),
                            organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                            statut: StatutApprobation | None = None,
                            type_objet: TypeObjetApprobation | None = Query(None, alias="typeObjet"),
                            objet_id: uuid.UUID | None = Query(None, alias="objetId"),
                            ) -> Page[ApprobationResponse]:
    filters = ApprobationFilters(GENRE, organisation_id=organisation_id, statut=statut_demande(statut),
                             nature=type_objet, objet_id=objet_id)
    return await ApprobationService(session, auth).lister(filters, params)


@router.get("/a-decider", response_model=Page[ApprobationResponse], summary="Demandes que je peux décider",
            description="EN_ATTENTE, de mes organisations, ni demandées ni déjà approuvées (niveau 1) par moi; "
                        "les plus anciennes d'abord.")
async def approbations_to_decide(session: SessionDep, auth: AuthContext = authorize(RS_FINANCE_DECIDE),
                                 params: PageParams = Depends(paging(20))) -> Page[ApprobationResponse]:
    return await ApprobationService(session, auth).lister(ApprobationFilters(GENRE, a_decider=True), params)


@router.get("/{id}", response_model=ApprobationResponse, responses=problems(404),
            summary="Consulter une demande d'approbation et ses décisions")
async def get_approbation(id: uuid.UUID, session: SessionDep,
                          auth: AuthContext = authorize(RS_FINANCE_READ)) -> ApprobationResponse:
    return await ApprobationService(session, auth).obtenir(id)


@router.post("/{id}/approuver", response_model=ApprobationResponse, responses=problems(404),
             summary="Approuver (un niveau)",
             description="Ajoute la décision du niveau suivant; APPROUVEE quand tous les niveaux requis le sont. "
                         + DECIDEUR)
async def approve(id: uuid.UUID, session: SessionDep, data: ApprouverRequest | None = None,
                  auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> ApprobationResponse:
    return await ApprobationService(session, auth).approuver(id, data.commentaire if data else None)


@router.post("/{id}/rejeter", response_model=ApprobationResponse, responses=problems(404),
             summary="Rejeter", description="Commentaire obligatoire; REJETEE est définitif. " + DECIDEUR)
async def reject(id: uuid.UUID, data: RejeterRequest, session: SessionDep,
                 auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> ApprobationResponse:
    return await ApprobationService(session, auth).rejeter(id, data.commentaire)


@router.post("/{id}/annuler", response_model=ApprobationResponse, responses=problems(404),
             summary="Retirer sa demande",
             description="Par le demandeur (ou ADMIN), tant qu'elle est EN_ATTENTE; motif obligatoire.")
async def cancel(id: uuid.UUID, data: AnnulerRequest, session: SessionDep,
                 auth: AuthContext = authorize(RS_FINANCE_WRITE)) -> ApprobationResponse:
    return await ApprobationService(session, auth).annuler(id, data.motif)
