"""A member's credit (avoir) with an organisation (extension to the published spec)."""

from __future__ import annotations

import uuid

from fastapi import Query
from fastapi.responses import JSONResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.paiements import operations
from unionflow.paiements.avoirs.api_service import AvoirApiService
from unionflow.paiements.avoirs.schemas import (
    AvoirResponse,
    ImputerAvoirRequest,
    ImputerAvoirResponse,
    RegistreAvoirsResponse,
)

router = area_router("/api/avoirs", "Paiements")


@router.get("", response_model=AvoirResponse, responses=problems(404),
            summary="Avoir d'un membre dans une organisation",
            description="Extension. Trésorerie de l'organisation: le solde de l'avoir du membre (avances "
                        "et trop-perçus non encore imputés) et ses mouvements (création, imputation, extourne), "
                        "chacun rattaché à son reçu d'origine. 404 si l'organisation ou le membre n'est pas visible.")
async def obtenir_avoir(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                        membre_id: uuid.UUID = Query(alias="membreId"),
                        organisation_id: uuid.UUID = Query(alias="organisationId")) -> AvoirResponse:
    return await AvoirApiService(session, auth).obtenir(membre_id, organisation_id)


@router.get("/registre", response_model=RegistreAvoirsResponse, responses=problems(404),
            summary="Registre des avoirs d'une organisation",
            description="Extension. Ce que l'organisation doit à chacun de ses membres (avances et trop-perçus non "
                        "encore imputés), un membre par ligne, et à côté le solde créditeur du compte 4191 de ses "
                        "livres: `ecart` est nul quand le registre et les livres concordent. Lecture de la "
                        "trésorerie, du président et du commissaire aux comptes. 404 si l'organisation n'est pas "
                        "visible.")
async def registre_avoirs(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                          organisation_id: uuid.UUID = Query(alias="organisationId")) -> RegistreAvoirsResponse:
    return await AvoirApiService(session, auth).registre(organisation_id)


@router.post("/imputer", response_model=ImputerAvoirResponse, responses=problems(403, 404),
             summary="Imputer l'avoir d'un membre sur ses cotisations les plus anciennes",
             description="Extension. Permission avoir.imputer (trésorerie de l'organisation, 403 sinon). "
                         "L'avoir du membre paie ses cotisations dues dans l'ordre des échéances (puis des "
                         "références), en commençant par l'argent le plus ancien, aussi loin qu'il va; une "
                         "cotisation réservée par un paiement en attente (session Wave) est laissée à celui-ci. "
                         "Écriture: débit 4191, crédit du compte de produit; aucun mouvement de trésorerie. "
                         "Rien à imputer: 200 avec une liste vide. En-tête Idempotency-Key recommandé.")
async def imputer_avoir(data: ImputerAvoirRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_TRESORERIE),
                        idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.imputer_avoir(session, auth, idem, data))
