from __future__ import annotations

import uuid

from fastapi import Body, Path, Request, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import set_total_header
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_ORG_ADMIN, RoleOrganisation
from unionflow.core.routing import area_router
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.membres.schemas import AppartenanceResponse
from unionflow.roles import service
from unionflow.roles.schemas import RoleResponse

router = area_router("/api/roles", "Rôles")


@router.get("", response_model=list[RoleResponse], summary="Catalogue des rôles",
            description="Chaque rôle avec son libellé, sa portée (REALM ou ORGANISATION) et les opérations qu'il "
                        "ouvre, lues sur les routes de l'application. Total dans `X-Total-Count`.")
async def list_roles(request: Request, response: Response,
                     auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> list[RoleResponse]:
    roles = service.catalogue(request.app.routes)
    set_total_header(response, len(roles))
    return roles


@router.get("/{code}", response_model=RoleResponse, responses=problems(404), summary="Détail d'un rôle")
async def get_role(request: Request, code: str = Path(max_length=50),
                   auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> RoleResponse:
    return service.one(code, request.app.routes)


@router.put("/membres/{membreId}/organisations/{organisationId}", response_model=AppartenanceResponse,
            responses=problems(404, 409), summary="Attribuer les rôles d'un membre dans une organisation",
            description="Corps: tableau des rôles d'organisation (ADMIN_ORGANISATION, MEMBRE, MODERATEUR, TRESORIER, "
                        "PRESIDENT, SECRETAIRE, ORGANISATEUR_EVENEMENT, et l'extension COMMISSAIRE_AUX_COMPTES: "
                        "contrôleur en lecture seule); tout autre rôle: 400. MEMBRE est toujours "
                        "inclus. Par SUPER_ADMIN/ADMIN ou l'ADMIN_ORGANISATION de l'organisation; le membre doit y "
                        "avoir une appartenance en cours. 409 si l'organisation perdrait son dernier administrateur. "
                        "Journalisé (WARNING).")
async def assign_roles(session: SessionDep, roles: list[RoleOrganisation] = Body(min_length=1),
                       membre_id: uuid.UUID = Path(alias="membreId"),
                       organisation_id: uuid.UUID = Path(alias="organisationId"),
                       auth: AuthContext = authorize(RS_ORG_ADMIN)) -> AppartenanceResponse:
    return await AppartenanceService(session, auth).definir_roles(membre_id, organisation_id, roles)
