from __future__ import annotations

import uuid

from fastapi import Depends, Query

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_ANY_AUTHENTICATED, RS_FEEDBACK_MODERATION
from unionflow.core.routing import area_router
from unionflow.feedback.repository import FeedbackFilters
from unionflow.feedback.schemas import CreateFeedbackRequest, FeedbackResponse, FeedbackStatistiques, TraitementRequest
from unionflow.feedback.service import FeedbackService
from unionflow.models.feedback import TypeFeedback

router = area_router("/api/feedback", "Feedback")


@router.post("", status_code=201, response_model=FeedbackResponse,
             summary="Donner son avis sur l'application ou le service",
             description="Tout utilisateur connecté: type BUG, AMELIORATION ou AUTRE, note 1 à 5 facultative, "
                         "message, contexte (écran) et version facultatifs. Les avis sur un événement passent par "
                         "/api/evenements/{id}/feedback.")
async def create_feedback(data: CreateFeedbackRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> FeedbackResponse:
    return await FeedbackService(session, auth).creer(data)


@router.get("", response_model=Page[FeedbackResponse], summary="Lister les avis (modération)",
            description="MODERATEUR, ADMIN, SUPER_ADMIN: tous les avis, plus récents d'abord; filtres type, "
                        "traite, note, recherche q (message, contexte).")
async def list_feedback(
    session: SessionDep,
    auth: AuthContext = authorize(RS_FEEDBACK_MODERATION),
    params: PageParams = Depends(paging(20)),
    type: TypeFeedback | None = None,
    traite: bool | None = None,
    note: int | None = Query(None, ge=1, le=5),
    q: str | None = Query(None, max_length=100),
) -> Page[FeedbackResponse]:
    return await FeedbackService(session, auth).lister(FeedbackFilters(type=type, traite=traite, note=note, q=q),
                                                       params)


@router.get("/mes-feedbacks", response_model=Page[FeedbackResponse], summary="Mes avis",
            description="Les avis de l'utilisateur connecté et leur suivi (traité ou non).")
async def my_feedback(session: SessionDep, auth: AuthContext = authorize(RS_ANY_AUTHENTICATED),
                      params: PageParams = Depends(paging(20))) -> Page[FeedbackResponse]:
    return await FeedbackService(session, auth).lister(FeedbackFilters(mine=True), params)


@router.get("/statistiques", response_model=FeedbackStatistiques, summary="Statistiques des avis (modération)")
async def feedback_statistics(session: SessionDep,
                              auth: AuthContext = authorize(RS_FEEDBACK_MODERATION)) -> FeedbackStatistiques:
    return await FeedbackService(session, auth).statistics()


@router.get("/{id}", response_model=FeedbackResponse, responses=problems(404), summary="Consulter un avis",
            description="L'auteur ou un modérateur (MODERATEUR, ADMIN, SUPER_ADMIN); sinon 404.")
async def get_feedback(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_ANY_AUTHENTICATED)) -> FeedbackResponse:
    return await FeedbackService(session, auth).obtenir(id)


@router.post("/{id}/traiter", response_model=FeedbackResponse, responses=problems(404, 409),
             summary="Marquer un avis comme traité",
             description="Enregistre qui l'a traité, quand, et un commentaire facultatif; déjà traité → 409.")
async def process_feedback(id: uuid.UUID, session: SessionDep, data: TraitementRequest | None = None,
                           auth: AuthContext = authorize(RS_FEEDBACK_MODERATION)) -> FeedbackResponse:
    return await FeedbackService(session, auth).traiter(id, data or TraitementRequest())
