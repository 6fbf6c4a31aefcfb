from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_SUGGESTION_STAFF
from unionflow.core.routing import area_router
from unionflow.models.suggestion import CategorieSuggestion, StatutSuggestion
from unionflow.suggestions.repository import SuggestionFilters
from unionflow.suggestions.schemas import (
    CreateSuggestionRequest,
    ReponseSuggestionRequest,
    SuggestionResponse,
    UpdateSuggestionRequest,
    VoteResponse,
)
from unionflow.suggestions.service import SuggestionService

router = area_router("/api/suggestions", "Suggestions")

_VISIBILITY = ("Visibilité: membres et bureau de l'organisation (ses idées sont partagées pour être votées), "
               "l'auteur, ADMIN/SUPER_ADMIN; sinon 404.")


@router.post("", status_code=201, response_model=SuggestionResponse, responses=problems(404),
             summary="Proposer une idée à son organisation",
             description="Le membre connecté (fiche membre et adhésion active à `organisationId` requises) "
                         "propose une idée; statut SOUMISE. Compte sans fiche membre: 400 `regle-metier`.")
async def create_suggestion(data: CreateSuggestionRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> SuggestionResponse:
    return await SuggestionService(session, auth).creer(data)


@router.get("", response_model=Page[SuggestionResponse], summary="Lister les suggestions",
            description="Tri `VOTES` (défaut: plus votées, puis plus récentes) ou `DATE` (plus récentes). "
                        "Filtres organisation, statut, catégorie, `mesSuggestions`, recherche `q`. " + _VISIBILITY)
async def list_suggestions(
    session: SessionDep,
    auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
    params: PageParams = Depends(paging(20)),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    statut: StatutSuggestion | None = None,
    categorie: CategorieSuggestion | None = None,
    mes_suggestions: bool = Query(False, alias="mesSuggestions"),
    q: str | None = Query(None, max_length=100),
    tri: str = Query("VOTES", pattern="^(VOTES|DATE)$"),
) -> Page[SuggestionResponse]:
    filters = SuggestionFilters(organisation_id=organisation_id, statut=statut, categorie=categorie, q=q,
                                mine=mes_suggestions, tri=tri)
    return await SuggestionService(session, auth).lister(filters, params)


@router.get("/{id}", response_model=SuggestionResponse, responses=problems(404),
            summary="Consulter une suggestion", description=_VISIBILITY)
async def get_suggestion(id: uuid.UUID, session: SessionDep,
                         auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> SuggestionResponse:
    return await SuggestionService(session, auth).obtenir(id)


@router.put("/{id}", response_model=SuggestionResponse, responses=problems(404),
            summary="Modifier sa suggestion",
            description="L'auteur seul (403), tant que la suggestion est SOUMISE (400).")
async def update_suggestion(id: uuid.UUID, data: UpdateSuggestionRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> SuggestionResponse:
    return await SuggestionService(session, auth).modifier(id, data)


@router.post("/{id}/vote", response_model=VoteResponse, responses=problems(404),
             summary="Voter pour une suggestion (ou retirer son vote)",
             description="Bascule: un vote par membre de l'organisation; un second appel retire le vote. "
                         "Votes ouverts tant que la suggestion est SOUMISE ou EN_ETUDE (sinon 400).")
async def vote_suggestion(id: uuid.UUID, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> VoteResponse:
    return await SuggestionService(session, auth).basculer_vote(id)


@router.post("/{id}/statut", response_model=SuggestionResponse, responses=problems(404),
             summary="Statuer sur une suggestion (bureau)",
             description="SOUMISE → EN_ETUDE | RETENUE | REJETEE; EN_ETUDE → RETENUE | REJETEE; RETENUE → "
                         "REALISEE. REJETEE et REALISEE sont finales. `reponse` (visible des membres) requise "
                         "pour RETENUE et REJETEE. Bureau de l'organisation de la suggestion seulement.")
async def respond_suggestion(id: uuid.UUID, data: ReponseSuggestionRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_SUGGESTION_STAFF)) -> SuggestionResponse:
    return await SuggestionService(session, auth).repondre(id, data)
