"""General feedback: any signed-in user comments on the app or the service; moderators process it."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound
from unionflow.core.pagination import Page, PageParams
from unionflow.feedback.repository import FeedbackFilters, FeedbackRepository
from unionflow.feedback.schemas import (
    CreateFeedbackRequest,
    FeedbackResponse,
    FeedbackStatistiques,
    TraitementRequest,
)
from unionflow.models import Feedback
from unionflow.models.base import utcnow

MODULE = "FEEDBACK"
FIELDS = ["type_feedback", "note", "traite", "traite_par", "date_traitement", "commentaire_traitement"]


def to_response(feedback: Feedback) -> FeedbackResponse:
    data = {k: getattr(feedback, k) for k in FeedbackResponse.model_fields if hasattr(feedback, k)}
    return FeedbackResponse.model_validate({**data, "type": feedback.type_feedback})


class FeedbackService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = FeedbackRepository(session, auth)

    async def creer(self, data: CreateFeedbackRequest) -> FeedbackResponse:
        feedback = Feedback(type_feedback=data.type.value, note=data.note, message=data.message,
                            contexte=data.contexte, version_application=data.version_application,
                            auteur_sub=self.auth.personne, auteur_nom=self.auth.actor_name,
                            membre_id=self.auth.membre_id,
                            organisation_id=self.auth.active_organisation_id, traite=False)
        self.repo.add(feedback)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Feedback",
                           entite_id=feedback.id, after=audit.snapshot(feedback, FIELDS))
        return to_response(feedback)

    async def obtenir(self, feedback_id: uuid.UUID) -> FeedbackResponse:
        feedback = await self.repo.get(feedback_id)
        if feedback is None:
            raise NotFound("Feedback introuvable")
        return to_response(feedback)

    async def lister(self, filters: FeedbackFilters, params: PageParams) -> Page[FeedbackResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[FeedbackResponse].build([to_response(f) for f in rows], params, total, exact)

    async def statistics(self) -> FeedbackStatistiques:
        total, open_, average, notes, by_type = await self.repo.statistics()
        return FeedbackStatistiques(total=total, non_traites=open_, nombre_notes=notes, par_type=by_type,
                                    note_moyenne=round(average, 2) if average is not None else None)

    async def traiter(self, feedback_id: uuid.UUID, data: TraitementRequest) -> FeedbackResponse:
        feedback = await self.repo.get(feedback_id, for_update=True)
        if feedback is None:
            raise NotFound("Feedback introuvable")
        if feedback.traite:
            raise Conflict(f"Feedback déjà traité par {feedback.traite_par}")
        before = audit.snapshot(feedback, FIELDS)
        feedback.traite = True
        feedback.traite_par = self.auth.actor_name
        feedback.date_traitement = utcnow()
        feedback.commentaire_traitement = data.commentaire
        await self.session.flush()
        await audit.record(self.session, self.auth, action="TRAITER", module=MODULE, entite_type="Feedback",
                           entite_id=feedback.id, before=before, after=audit.snapshot(feedback, FIELDS))
        return to_response(feedback)
