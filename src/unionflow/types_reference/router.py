from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_TYPES_REFERENCE_WRITE
from unionflow.core.routing import area_router
from unionflow.types_reference.repository import TypeFilters
from unionflow.types_reference.schemas import (
    CODE,
    CreateTypeReferenceRequest,
    DomaineResponse,
    TypeReferenceResponse,
    UpdateTypeReferenceRequest,
)
from unionflow.types_reference.service import TypeReferenceService

router = area_router("/api/types-reference", "Types de référence")


@router.get("", response_model=Page[TypeReferenceResponse], summary="Lister les types de référence",
            description="Triés par domaine, ordre puis code. Filtres `domaine`, `actif`, `q` (code ou libellé). "
                        "Tout utilisateur authentifié.")
async def list_types(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                     params: PageParams = Depends(paging(100)),
                     domaine: str | None = Query(None, pattern=CODE), actif: bool | None = None,
                     q: str | None = Query(None, max_length=100)) -> Page[TypeReferenceResponse]:
    return await TypeReferenceService(session, auth).lister(TypeFilters(domaine=domaine, actif=actif, q=q), params)


@router.get("/domaines", response_model=list[DomaineResponse], summary="Domaines et nombre d'entrées")
async def list_domaines(session: SessionDep,
                        auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> list[DomaineResponse]:
    return await TypeReferenceService(session, auth).domaines()


@router.get("/{id}", response_model=TypeReferenceResponse, responses=problems(404),
            summary="Consulter un type de référence")
async def get_type(id: uuid.UUID, session: SessionDep,
                   auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> TypeReferenceResponse:
    return await TypeReferenceService(session, auth).obtenir(id)


@router.post("", status_code=201, response_model=TypeReferenceResponse, responses=problems(409),
             summary="Créer un type de référence",
             description="ADMIN/SUPER_ADMIN. Code unique dans son domaine (409); domaine et code en majuscules "
                         "(A-Z, 0-9, _), définitifs. Une entrée créée ici n'est jamais `systeme`. Un nouveau code "
                         "de TYPE_EVENEMENT ou TYPE_DOCUMENT est aussitôt accepté par les événements et documents.")
async def create_type(data: CreateTypeReferenceRequest, session: SessionDep,
                      auth: AuthContext = authorize(RS_TYPES_REFERENCE_WRITE)) -> TypeReferenceResponse:
    return await TypeReferenceService(session, auth).creer(data)


@router.put("/{id}", response_model=TypeReferenceResponse, responses=problems(404),
            summary="Modifier un type de référence",
            description="ADMIN/SUPER_ADMIN: libellé, description, ordre, actif (y compris pour une entrée système); "
                        "domaine et code ne changent pas (champ inconnu → 400). Une entrée inactive n'est plus "
                        "acceptée pour les nouveaux enregistrements; les anciens la gardent.")
async def update_type(id: uuid.UUID, data: UpdateTypeReferenceRequest, session: SessionDep,
                      auth: AuthContext = authorize(RS_TYPES_REFERENCE_WRITE)) -> TypeReferenceResponse:
    return await TypeReferenceService(session, auth).modifier(id, data)


@router.delete("/{id}", response_model=TypeReferenceResponse, responses={**problems(404, 409), 204: {
    "description": "Entrée supprimée"}},
               summary="Supprimer (ou désactiver) un type de référence",
               description="ADMIN/SUPER_ADMIN. Entrée système → 409. Entrée utilisée par un enregistrement "
                           "(événement, document, demande ou proposition d'aide) → désactivée au lieu d'être "
                           "supprimée: 200 avec l'entrée (`actif: false`). Sinon supprimée: 204.")
async def delete_type(id: uuid.UUID, session: SessionDep,
                      auth: AuthContext = authorize(RS_TYPES_REFERENCE_WRITE)) -> TypeReferenceResponse | Response:
    deactivated = await TypeReferenceService(session, auth).supprimer(id)
    return deactivated if deactivated is not None else Response(status_code=204)
