"""« À approuver »: one list of the pending requests of every kind the caller may decide (extension)."""

from __future__ import annotations

from fastapi import Depends

from unionflow.approbations import service
from unionflow.approbations.schemas import AApprouverResponse
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_A_APPROUVER
from unionflow.core.routing import area_router

router = area_router("/api/approbations", "Finance - Approvals")


@router.get("/a-approuver", response_model=Page[AApprouverResponse],
            summary="À approuver: toutes mes décisions en attente",
            description="Extension, hors spécification. Les demandes EN_ATTENTE de tout genre (approbations "
                        "financières, réouvertures de période, annulations d'argent) que l'appelant peut décider: "
                        "dans les organisations où il tient la permission de décider de ce genre, ni demandées ni "
                        "déjà approuvées par lui; les plus anciennes d'abord. `chemin` mène aux routes du genre "
                        "(consulter, approuver, rejeter), qui vérifient les autres règles (la personne qui a "
                        "enregistré l'argent, le rôle sous lequel on décide). Le commissaire aux comptes lit les "
                        "demandes et leurs décisions par les routes de consultation de chaque genre mais n'en décide "
                        "aucune: cette liste ne le concerne pas (403).")
async def a_approuver(session: SessionDep, auth: AuthContext = authorize(RS_A_APPROUVER),
                      params: PageParams = Depends(paging(20))) -> Page[AApprouverResponse]:
    return await service.a_approuver(session, auth, params)
