from __future__ import annotations

import uuid

from fastapi import Depends, Path, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import (
    RS_ANY_AUTHENTICATED,
    RS_MEMBRE_READ,
    RS_MEMBRE_SELF,
    RS_MEMBRE_WRITE,
    RS_ORG_ADMIN,
)
from unionflow.core.routing import area_router
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.membres.repository import MembreFilters
from unionflow.membres.schemas import (
    PHONE_PATTERN,
    AppartenanceResponse,
    CreateAppartenanceRequest,
    CreateMembreRequest,
    FinAppartenance,
    MembreResponse,
    StatutRequest,
    UpdateMembreRequest,
    UpdateProfilRequest,
    UpdateRolesRequest,
)
from unionflow.membres.service import MembreService
from unionflow.models.membre import StatutMembre

router = area_router("/api/membres", "Membres")

_VISIBILITY = ("Visibilité: SUPER_ADMIN/ADMIN voient tous les membres; ADMIN_ORGANISATION, SECRETAIRE, PRESIDENT "
               "et TRESORIER ceux de leurs organisations (anciens membres compris); un MEMBRE/USER seulement sa "
               "propre fiche. Hors visibilité: 404.")


@router.post("", status_code=201, response_model=MembreResponse, responses=problems(404, 409),
             summary="Inscrire un membre",
             description="`numeroMembre` est attribué par le serveur (MBR-AAAA-NNNNNN, séquentiel par année). "
                         "Avec `organisationId` (obligatoire hors SUPER_ADMIN/ADMIN) une appartenance ACTIF est "
                         "créée avec `roles` (défaut MEMBRE; rôles autres que MEMBRE: administrateur de "
                         "l'organisation). E-mail stocké en minuscules et unique: 409 si déjà utilisé. 400 "
                         "`regle-metier`: sans `organisationId`, `roles` n'a pas de sens (même vide), et "
                         "`organisationId` est obligatoire pour qui n'est pas SUPER_ADMIN/ADMIN.")
async def create_membre(data: CreateMembreRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> MembreResponse:
    return await MembreService(session, auth).creer(data)


@router.get("", response_model=Page[MembreResponse], summary="Lister et rechercher les membres",
            description="`q` cherche dans nom, prénom, e-mail et téléphone sans tenir compte des accents ni de "
                        "la casse (« élodie » trouve « Élodie »); chaque mot de `q` doit y figurer. Tri: nom, "
                        "prénom. " + _VISIBILITY)
async def list_membres(
    session: SessionDep,
    auth: AuthContext = authorize(RS_MEMBRE_READ),
    params: PageParams = Depends(paging(20)),
    q: str | None = Query(None, max_length=100),
    statut: StatutMembre | None = None,
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    email: str | None = Query(None, max_length=254),
    telephone: str | None = Query(None, pattern=PHONE_PATTERN, description="E.164, ex. +221771234567"),
) -> Page[MembreResponse]:
    filters = MembreFilters(q=q, statut=statut, organisation_id=organisation_id, email=email, telephone=telephone)
    return await MembreService(session, auth).lister(filters, params)


@router.get("/me", response_model=MembreResponse, responses=problems(404),
            summary="Ma fiche membre", description="404 si aucune fiche n'est liée au compte connecté.")
async def my_profile(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> MembreResponse:
    return await MembreService(session, auth).me()


@router.put("/me", response_model=MembreResponse, responses=problems(404),
            summary="Modifier mes coordonnées",
            description="Seules les coordonnées personnelles (téléphone, adresse, ville, pays) sont modifiables par "
                        "le membre; l'e-mail est celui du compte d'identité, le reste relève du secrétariat.")
async def update_my_profile(data: UpdateProfilRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> MembreResponse:
    return await MembreService(session, auth).update_me(data)


@router.get("/numero/{numeroMembre}", response_model=MembreResponse, responses=problems(404),
            summary="Rechercher un membre par numéro", description=_VISIBILITY)
async def get_by_numero(session: SessionDep, numero: str = Path(alias="numeroMembre", max_length=30),
                        auth: AuthContext = authorize(RS_MEMBRE_SELF)) -> MembreResponse:
    return await MembreService(session, auth).obtenir_par_numero(
        numero, ecran="GET /api/membres/numero/{numeroMembre}")


@router.get("/{id}", response_model=MembreResponse, responses=problems(404), summary="Consulter un membre",
            description=_VISIBILITY)
async def get_membre(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_MEMBRE_SELF)) -> MembreResponse:
    return await MembreService(session, auth).obtenir(id, ecran="GET /api/membres/{id}")


@router.put("/{id}", response_model=MembreResponse, responses=problems(404, 409), summary="Modifier un membre",
            description="Mise à jour partielle par le secrétariat d'une organisation du membre (ADMIN_ORGANISATION, "
                        "SECRETAIRE) ou SUPER_ADMIN/ADMIN. Fiche d'un membre RADIE figée (400 `invalid-state`). "
                        "`dateNaissance` passée et après 1900, sinon 400 `regle-metier`.")
async def update_membre(id: uuid.UUID, data: UpdateMembreRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> MembreResponse:
    return await MembreService(session, auth).modifier(id, data)


@router.post("/{id}/statut", response_model=MembreResponse, responses=problems(404),
             summary="Changer le statut d'un membre",
             description="ACTIF ⇄ INACTIF, ACTIF/INACTIF → SUSPENDU → ACTIF, tout statut → RADIE (définitif). "
                         "Motif obligatoire pour SUSPENDU et RADIE (dans le schéma; 400 `regle-metier`). Passer au "
                         "statut "
                         "actuel: 400 `invalid-state`. Les appartenances suivent: suspendues avec le "
                         "membre, rétablies à la levée, terminées par la radiation. Une organisation ne décide du "
                         "statut que si le membre n'appartient qu'à elle (sinon 403: terminer l'appartenance).")
async def change_statut(id: uuid.UUID, data: StatutRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> MembreResponse:
    return await MembreService(session, auth).changer_statut(id, data)


@router.get("/{id}/organisations", response_model=list[AppartenanceResponse], responses=problems(404),
            summary="Appartenances d'un membre, avec ses rôles",
            description="Le personnel d'une organisation ne voit que les appartenances à ses organisations. "
                        "Total dans `X-Total-Count`.")
async def list_appartenances(id: uuid.UUID, session: SessionDep, response: Response,
                             auth: AuthContext = authorize(RS_MEMBRE_SELF)) -> list[AppartenanceResponse]:
    rows = await AppartenanceService(session, auth).lister(id, ecran="GET /api/membres/{id}/organisations")
    set_total_header(response, len(rows))
    return rows


@router.post("/{id}/organisations", status_code=201, response_model=AppartenanceResponse,
             responses=problems(404, 409), summary="Ajouter une appartenance",
             description="Le membre rejoint une organisation dont l'appelant tient le registre; une appartenance "
                         "terminée est rouverte; 409 si elle est en cours. Refusé (400) pour un membre suspendu "
                         "ou radié, ou une organisation suspendue.")
async def add_appartenance(id: uuid.UUID, data: CreateAppartenanceRequest, session: SessionDep,
                           auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> AppartenanceResponse:
    return await AppartenanceService(session, auth).ajouter(id, data.organisation_id, data.roles)


@router.put("/{id}/organisations/{organisationId}", response_model=AppartenanceResponse,
            responses=problems(404, 409), summary="Changer les rôles d'une appartenance",
            description="Rôles d'organisation seulement (MEMBRE toujours inclus), par SUPER_ADMIN/ADMIN ou "
                        "l'ADMIN_ORGANISATION de l'organisation. 409 si l'organisation perdrait son dernier "
                        "administrateur. Identique à PUT /api/roles/membres/{membreId}/organisations/{organisationId}.")
async def update_appartenance(id: uuid.UUID, data: UpdateRolesRequest, session: SessionDep,
                              organisation_id: uuid.UUID = Path(alias="organisationId"),
                              auth: AuthContext = authorize(RS_ORG_ADMIN)) -> AppartenanceResponse:
    return await AppartenanceService(session, auth).definir_roles(id, organisation_id, data.roles)


@router.post("/{id}/organisations/{organisationId}/terminer", response_model=AppartenanceResponse,
             responses=problems(404, 409), summary="Mettre fin à une appartenance",
             description="L'appartenance passe à TERMINE avec la date du jour; la fiche du membre et son historique "
                         "restent (le registre de l'organisation garde ses anciens membres).")
async def end_appartenance(id: uuid.UUID, session: SessionDep, data: FinAppartenance | None = None,
                           organisation_id: uuid.UUID = Path(alias="organisationId"),
                           auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> AppartenanceResponse:
    return await AppartenanceService(session, auth).terminer(id, organisation_id, data.motif if data else None)
