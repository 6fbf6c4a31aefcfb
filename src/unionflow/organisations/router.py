from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import ReadConnection, ReadSession, SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ORG_ADMIN, RS_ORG_READ, RS_UNION_ADMIN
from unionflow.core.routing import area_router
from unionflow.models.organisation import StatutOrganisation, TypeOrganisation
from unionflow.organisations.lectures import OrganisationLecture
from unionflow.organisations.repository import OrganisationFilters
from unionflow.organisations.schemas import (
    CreateOrganisationRequest,
    MonOrganisationResponse,
    OrganisationResponse,
    SuspensionRequest,
    UpdateOrganisationRequest,
)
from unionflow.organisations.service import OrganisationService

router = area_router("/api/organisations", "Organisations")


@router.post("", status_code=201, response_model=OrganisationResponse, responses=problems(404),
             summary="Créer une organisation",
             description="SUPER_ADMIN/ADMIN créent toute organisation; un ADMIN_ORGANISATION seulement une "
                         "sous-organisation d'une organisation qu'il administre. La hiérarchie va de UNION à "
                         "FEDERATION puis ASSOCIATION (ou MUTUELLE, COOPERATIVE, TONTINE).")
async def create_organisation(data: CreateOrganisationRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_ORG_ADMIN)) -> OrganisationResponse:
    return await OrganisationService(session, auth).creer(data)


@router.get("", response_model=Page[OrganisationResponse], summary="Lister et rechercher les organisations",
            description="Annuaire de l'union: organisations actives (et suspendues dont on est membre); "
                        "SUPER_ADMIN/ADMIN voient tout. Recherche `q` sur nom, sigle et ville, "
                        "sans tenir compte des accents ni de la casse (chaque mot doit y figurer).")
async def list_organisations(
    auth: AuthContext = authorize(RS_ORG_READ), *, connection: ReadConnection,
    params: PageParams = Depends(paging(20)),
    q: str | None = Query(None, max_length=100),
    type_organisation: TypeOrganisation | None = Query(None, alias="typeOrganisation"),
    statut: StatutOrganisation | None = None,
    parent_id: uuid.UUID | None = Query(None, alias="parentId"),
    region: str | None = Query(None, max_length=100),
    pays: str | None = Query(None, max_length=2),
) -> Page[OrganisationResponse]:
    filters = OrganisationFilters(q=q, type_organisation=type_organisation, statut=statut,
                                  parent_id=parent_id, region=region, pays=pays)
    return await OrganisationLecture(connection, auth).search(filters, params)


@router.get("/mes-organisations", response_model=list[MonOrganisationResponse],
            summary="Organisations du membre connecté, avec ses rôles")
async def my_organisations(auth: AuthContext = authorize(RS_ORG_READ),
                           *, connection: ReadConnection) -> list[MonOrganisationResponse]:
    return await OrganisationLecture(connection, auth).mine()


@router.get("/{id}", response_model=OrganisationResponse, responses=problems(404),
            summary="Consulter une organisation")
async def get_organisation(id: uuid.UUID, auth: AuthContext = authorize(RS_ORG_READ),
                           *, connection: ReadConnection) -> OrganisationResponse:
    return await OrganisationLecture(connection, auth).get(id)


@router.get("/{id}/enfants", response_model=list[OrganisationResponse], responses=problems(404),
            summary="Sous-organisations directes")
async def organisation_children(id: uuid.UUID, auth: AuthContext = authorize(RS_ORG_READ),
                                *, session: ReadSession) -> list[OrganisationResponse]:
    return await OrganisationService(session, auth).children(id)


@router.put("/{id}", response_model=OrganisationResponse, responses=problems(404),
            summary="Modifier une organisation",
            description="Réservé aux administrateurs de l'organisation; la hiérarchie (type, parent) aux "
                        "SUPER_ADMIN/ADMIN. 400 `regle-metier` (selon les données enregistrées): une UNION ne "
                        "dépend pas d'une UNION, `logoDocumentId` doit être un document PNG ou JPEG de cette "
                        "organisation.")
async def update_organisation(id: uuid.UUID, data: UpdateOrganisationRequest, session: SessionDep,
                              auth: AuthContext = authorize(RS_ORG_ADMIN)) -> OrganisationResponse:
    return await OrganisationService(session, auth).modifier(id, data)


@router.post("/{id}/suspendre", response_model=OrganisationResponse, responses=problems(404),
             summary="Suspendre une organisation (motif requis)",
             description="ACTIVE → SUSPENDUE; une organisation déjà suspendue: 400 `invalid-state`.")
async def suspend_organisation(id: uuid.UUID, data: SuspensionRequest, session: SessionDep,
                               auth: AuthContext = authorize(RS_UNION_ADMIN)) -> OrganisationResponse:
    return await OrganisationService(session, auth).changer_statut(id, StatutOrganisation.SUSPENDUE, data.motif)


@router.post("/{id}/reactiver", response_model=OrganisationResponse, responses=problems(404),
             summary="Réactiver une organisation suspendue",
             description="SUSPENDUE → ACTIVE; une organisation déjà active: 400 `invalid-state`.")
async def reactivate_organisation(id: uuid.UUID, session: SessionDep,
                                  auth: AuthContext = authorize(RS_UNION_ADMIN)) -> OrganisationResponse:
    return await OrganisationService(session, auth).changer_statut(id, StatutOrganisation.ACTIVE, None)
