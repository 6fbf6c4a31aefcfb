"""Lock date and fiscal-year closing of an organisation's books."""

from __future__ import annotations

import uuid

from fastapi import Query

from unionflow.clotures.exercice.schemas import (
    ClotureRequest,
    ExerciceResponse,
    VerrouillageRequest,
    VerrouillageResponse,
)
from unionflow.clotures.exercice.service import ClotureService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router

router = area_router("/api/comptabilite", "Comptabilité")

ORG = Query(..., alias="organisationId")


@router.get("/verrouillage", response_model=VerrouillageResponse, responses=problems(404),
            summary="Date de verrouillage des comptes",
            description="Aucune écriture ne peut être datée de ce jour ou avant (null: aucune période close).")
async def get_verrouillage(session: SessionDep, organisation_id: uuid.UUID = ORG,
                           auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> VerrouillageResponse:
    return await ClotureService(session, auth).verrou(organisation_id)


@router.put("/verrouillage", response_model=VerrouillageResponse, responses=problems(404),
            summary="Verrouiller une période comptable",
            description="Administrateur ou trésorier de l'organisation (sinon 403). Une écriture manuelle datée "
            "dans la période verrouillée est refusée (400); une écriture automatique d'encaissement ou de versement "
            "est datée du premier jour ouvert (l'argent reçu n'est jamais refusé). Ne peut précéder le 31/12 du "
            "dernier exercice clôturé (400).")
async def put_verrouillage(data: VerrouillageRequest, session: SessionDep,
                           auth: AuthContext = authorize(RS_TRESORERIE)) -> VerrouillageResponse:
    return await ClotureService(session, auth).verrouiller(data)


@router.get("/exercices", response_model=list[ExerciceResponse], responses=problems(404),
            summary="Exercices comptables", description="Années ayant des écritures ou clôturées, avec leur statut "
            "(OUVERT, CLOTURE) et le résultat de clôture.")
async def exercices(session: SessionDep, organisation_id: uuid.UUID = ORG,
                    auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[ExerciceResponse]:
    return await ClotureService(session, auth).exercices(organisation_id)


@router.post("/exercices/{annee}/cloture", response_model=ExerciceResponse, status_code=201,
             responses=problems(404, 409), summary="Clôturer un exercice",
             description="Administrateur ou trésorier de l'organisation (sinon 403). L'année doit être terminée et "
             "la précédente clôturée (400); une seule clôture par année (409). Écriture de clôture au 31/12 dans le "
             "journal CLO: soldes des classes 6, 7 et 8 virés au résultat (131 excédent, 139 déficit); les comptes "
             "de bilan gardent leurs soldes; la période est verrouillée jusqu'au 31/12.")
async def cloturer(annee: int, data: ClotureRequest, session: SessionDep,
                   auth: AuthContext = authorize(RS_TRESORERIE)) -> ExerciceResponse:
    return await ClotureService(session, auth).cloturer(annee, data.organisation_id)
