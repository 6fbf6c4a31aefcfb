from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select, true

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contient
from unionflow.core.repository import ScopedRepository
from unionflow.core.roles import RS_FEEDBACK_MODERATION
from unionflow.core.visibility import EVERY, Shape, Visibility, scope_param
from unionflow.models import Feedback

# Bind parameter of the author rule: the caller's subject.
SCOPE_SUB = "scope_sub"


@dataclass(frozen=True)
class FeedbackFilters:
    type: str | None = None
    traite: bool | None = None
    note: int | None = None
    q: str | None = None
    mine: bool = False


class FeedbackRepository(ScopedRepository[Feedback]):
    """Moderators (MODERATEUR, ADMIN, SUPER_ADMIN) read every feedback; anyone else only their own."""

    model = Feedback
    auth: AuthContext

    @classmethod
    def visibility(cls, auth: AuthContext | None) -> Visibility:
        if auth is None or RS_FEEDBACK_MODERATION.allows(auth.roles):
            return EVERY
        return Visibility(Shape(membre=True), {SCOPE_SUB: auth.personne})

    @classmethod
    def scope_condition(cls, shape: Shape, values: dict[str, Any] | None = None) -> ColumnElement[bool]:
        return true() if shape.every else Feedback.auteur_sub == scope_param(SCOPE_SUB, values)

    async def search(self, filters: FeedbackFilters, params: PageParams) -> tuple[list[Feedback], int, bool]:
        stmt: Any = select(Feedback).where(
            Feedback.auteur_sub == self.auth.personne if filters.mine else self.scope())
        if filters.type:
            stmt = stmt.where(Feedback.type_feedback == filters.type)
        if filters.traite is not None:
            stmt = stmt.where(Feedback.traite.is_(filters.traite))
        if filters.note is not None:
            stmt = stmt.where(Feedback.note == filters.note)
        if filters.q:
            stmt = stmt.where(contient(Feedback.recherche, filters.q))
        return await self.paginate(stmt.order_by(Feedback.created_at.desc(), Feedback.id), params)

    async def statistics(self) -> tuple[int, int, float | None, int, dict[str, int]]:
        totals = (await self.session.execute(select(
            func.count(), func.count().filter(Feedback.traite.is_(False)), func.avg(Feedback.note),
            func.count(Feedback.note)).where(self.scope()))).one()
        by_type = (await self.session.execute(select(Feedback.type_feedback, func.count()).where(self.scope())
                                              .group_by(Feedback.type_feedback))).all()
        average = float(totals[2]) if totals[2] is not None else None
        return int(totals[0]), int(totals[1]), average, int(totals[3]), {t: int(n) for t, n in by_type}

    async def supprimer_avant(self, limite: datetime) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): an opinion treated (or left untreated) since before
        ``limite`` has served its purpose; nothing refers to it, so the row goes."""
        stmt = delete(Feedback).where(func.coalesce(Feedback.date_traitement, Feedback.created_at) < limite)
        return await self.lignes_touchees(stmt)
