"""Admin - Clients API: machine clients of partner systems (OAuth 2.0 client credentials, docs/integrations.md)."""

from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.clients_api.schemas import ClientApiCreatedResponse, ClientApiResponse, CreateClientApiRequest
from unionflow.clients_api.service import ClientApiService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_CLIENT_API
from unionflow.core.routing import area_router

router = area_router("/api/admin/clients-api", "Admin - Clients API")


@router.post("", response_model=ClientApiCreatedResponse, status_code=201, summary="Créer un client API",
             description="Crée un client pour le grant OAuth 2.0 `client_credentials` de `POST /api/auth/token`. "
                         "`clientSecret` n'est renvoyé qu'ici, une seule fois (empreinte argon2 conservée). "
                         "`roles`: ADMIN/SUPER_ADMIN (toute l'union; SUPER_ADMIN seulement par un SUPER_ADMIN) ou "
                         "rôles d'organisation, qui s'appliquent dans `organisationIds` seulement, comme une "
                         "adhésion. MEMBRE et USER sont refusés: un client n'a pas de fiche membre. 400 "
                         "`regle-metier`: une organisation de `organisationIds` inconnue (donnée enregistrée).")
async def create_client(data: CreateClientApiRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_CLIENT_API)) -> ClientApiCreatedResponse:
    return await ClientApiService(session, auth).creer(data)


@router.get("", response_model=Page[ClientApiResponse], summary="Lister les clients API",
            description="Le secret n'est jamais renvoyé. Filtre `actif`.")
async def list_clients(session: SessionDep, auth: AuthContext = authorize(RS_CLIENT_API),
                       params: PageParams = Depends(paging(20)),
                       actif: bool | None = Query(None)) -> Page[ClientApiResponse]:
    return await ClientApiService(session, auth).lister(actif, params)


@router.get("/{id}", response_model=ClientApiResponse, summary="Consulter un client API")
async def get_client(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_CLIENT_API)) -> ClientApiResponse:
    return await ClientApiService(session, auth).obtenir(id)


@router.post("/{id}/revoquer", response_model=ClientApiResponse, summary="Révoquer un client API",
             description="Définitif: le client ne peut plus obtenir de jeton (401 `invalid_client`) et ses jetons "
                         "en cours sont refusés dès la requête suivante (401). Un client déjà révoqué: 400 "
                         "`invalid-state`.")
async def revoke_client(id: uuid.UUID, session: SessionDep,
                        auth: AuthContext = authorize(RS_CLIENT_API)) -> ClientApiResponse:
    return await ClientApiService(session, auth).revoquer(id)
