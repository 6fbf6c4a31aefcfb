from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED
from unionflow.core.routing import area_router
from unionflow.favoris.schemas import CreateFavoriRequest, FavoriResponse, FavoriStatut
from unionflow.favoris.service import FavoriService
from unionflow.models.favori import TypeCible

router = area_router("/api/favoris", "Favoris")


@router.post("", status_code=201, response_model=FavoriResponse, responses=problems(404, 409),
             summary="Ajouter un favori",
             description="Cible EVENEMENT, ORGANISATION, DOCUMENT ou MEMBRE que l'utilisateur peut voir (mêmes "
                         "règles que les routes de ces domaines; sinon 404). Une cible une seule fois (409).")
async def add_favori(data: CreateFavoriRequest, session: SessionDep,
                     auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> FavoriResponse:
    return await FavoriService(session, auth).ajouter(data)


@router.get("", response_model=Page[FavoriResponse], summary="Mes favoris",
            description="Plus récents d'abord, filtre `typeCible`. Une cible devenue invisible ou supprimée reste "
                        "listée avec `disponible: false` et sans libellé, pour que l'utilisateur la retire.")
async def list_favoris(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                       params: PageParams = Depends(paging(20)),
                       type_cible: TypeCible | None = Query(None, alias="typeCible")) -> Page[FavoriResponse]:
    return await FavoriService(session, auth).lister(type_cible, params)


@router.get("/statut", response_model=FavoriStatut, summary="Cette cible est-elle dans mes favoris ?")
async def favori_status(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                        type_cible: TypeCible = Query(alias="typeCible"),
                        cible_id: uuid.UUID = Query(alias="cibleId")) -> FavoriStatut:
    return await FavoriService(session, auth).status(type_cible, cible_id)


@router.delete("/{id}", status_code=204, response_class=Response, responses=problems(404),
               summary="Retirer un favori", description="Seulement ses propres favoris; sinon 404.")
async def remove_favori(id: uuid.UUID, session: SessionDep,
                        auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> Response:
    await FavoriService(session, auth).retirer(id)
    return Response(status_code=204)
