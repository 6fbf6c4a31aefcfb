from __future__ import annotations

from fastapi import Request

from unionflow.admin_association.schemas import AssociationResponse, AssocierOrganisationRequest
from unionflow.admin_association.service import AssociationService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_SA
from unionflow.core.routing import area_router

router = area_router("/api/admin", "Admin - Association")


@router.post("/associer-organisation", response_model=AssociationResponse, responses=problems(404),
             summary="Associer un compte utilisateur à une organisation",
             description="Par e-mail. Sans fiche membre pour cet e-mail, une fiche minimale est créée (prénom/nom du "
                         "compte local s'il existe, sinon déduits de l'e-mail; compte local lié). L'appartenance est "
                         "créée (ou rouverte) ACTIF avec `roles` (défaut MEMBRE); sur une appartenance en cours, "
                         "`roles` fourni remplace les rôles, omis les laisse. Idempotent: un appel répété ne change "
                         "rien (`modifie: false`, aucune entrée d'audit). 404 organisation inconnue; 400 membre "
                         "suspendu ou radié. 400 `regle-metier`: rôles non attribuables dans une organisation "
                         "(seuls les rôles d'organisation: MEMBRE et les rôles du bureau; pas ADMIN, SUPER_ADMIN, "
                         "USER).")
async def associer_organisation(request: Request, data: AssocierOrganisationRequest, session: SessionDep,
                                auth: AuthContext = authorize(RS_SA)) -> AssociationResponse:
    return await AssociationService(session, auth, request.app.state.settings.issuer).associer(data)
