"""Reopening a locked period: routes added to the spec (extension), docs/comptabilite-lcbft.md."""

from __future__ import annotations

import uuid

from fastapi import Path, Query

from unionflow.clotures.deverrouillage.schemas import (
    CreateDeverrouillageRequest,
    DecisionDeverrouillageRequest,
    DeverrouillageResponse,
    RejetDeverrouillageRequest,
)
from unionflow.clotures.deverrouillage.service import DeverrouillageService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_FINANCE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router

router = area_router("/api/comptabilite/verrouillage/deverrouillages", "Comptabilité")

EXTENSION = ("Extension, hors spécification. Reculer la date de verrouillage rouvre une période: une "
             "personne la demande avec un motif (trésorier ou administrateur de l'organisation), une seconde la "
             "décide (président ou administrateur de l'organisation), jamais le demandeur et sous un autre rôle que "
             "celui de la demande (403 sinon, avec la raison). La date ne bouge qu'à l'approbation, tracée "
             "DEVERROUILLER dans le journal d'audit avec les dates avant et après.")
ID = Path(..., alias="id")


@router.get("", response_model=list[DeverrouillageResponse], responses=problems(404),
            summary="Demandes de réouverture d'une organisation", description="Plus récentes d'abord. " + EXTENSION)
async def lister(session: SessionDep, organisation_id: uuid.UUID = Query(..., alias="organisationId"),
                 auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[DeverrouillageResponse]:
    return await DeverrouillageService(session, auth).lister(organisation_id)


@router.post("", response_model=DeverrouillageResponse, status_code=201, responses=problems(404, 409),
             summary="Demander la réouverture d'une période verrouillée",
             description="`dateVerrouillage` antérieure à la date actuelle (sinon 400) et pas avant le 31/12 du "
                         "dernier exercice clôturé (400); une seule demande en attente par organisation (409). Les "
                         "décideurs de l'organisation sont notifiés. " + EXTENSION)
async def demander(data: CreateDeverrouillageRequest, session: SessionDep,
                   auth: AuthContext = authorize(RS_TRESORERIE)) -> DeverrouillageResponse:
    return await DeverrouillageService(session, auth).demander(data)


@router.get("/{id}", response_model=DeverrouillageResponse, responses=problems(404),
            summary="Consulter une demande de réouverture", description=EXTENSION)
async def consulter(session: SessionDep, demande_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> DeverrouillageResponse:
    return await DeverrouillageService(session, auth).get(demande_id)


@router.post("/{id}/approuver", response_model=DeverrouillageResponse, responses=problems(404),
             summary="Approuver une réouverture (la date de verrouillage recule)",
             description="Demande EN_ATTENTE seulement (400 sinon). " + EXTENSION)
async def approuver(data: DecisionDeverrouillageRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> DeverrouillageResponse:
    return await DeverrouillageService(session, auth).approuver(demande_id, data.commentaire)


@router.post("/{id}/rejeter", response_model=DeverrouillageResponse, responses=problems(404),
             summary="Rejeter une réouverture", description="Commentaire obligatoire. " + EXTENSION)
async def rejeter(data: RejetDeverrouillageRequest, session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_FINANCE_DECIDE)) -> DeverrouillageResponse:
    return await DeverrouillageService(session, auth).rejeter(demande_id, data.commentaire)


@router.post("/{id}/annuler", response_model=DeverrouillageResponse, responses=problems(404),
             summary="Retirer sa demande de réouverture", description="Le demandeur seul (403 sinon). " + EXTENSION)
async def annuler(session: SessionDep, demande_id: uuid.UUID = ID,
                  auth: AuthContext = authorize(RS_TRESORERIE)) -> DeverrouillageResponse:
    return await DeverrouillageService(session, auth).annuler(demande_id)
