from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.query import contains_ci
from unionflow.core.roles import RS_FEEDBACK_MODERATION
from unionflow.models import Feedback


@dataclass(frozen=True)
class FeedbackFilters:
    type: str | None = None
    traite: bool | None = None
    note: int | None = None
    q: str | None = None
    mine: bool = False


class FeedbackRepository:
    """Moderators (MODERATEUR, ADMIN, SUPER_ADMIN) read every feedback; anyone else only their own."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    @property
    def moderator(self) -> bool:
        return RS_FEEDBACK_MODERATION.allows(self.auth.roles)

    def _visible(self) -> ColumnElement[bool]:
        return true() if self.moderator else Feedback.auteur_sub == self.auth.sub

    async def get(self, feedback_id: uuid.UUID, *, for_update: bool = False) -> Feedback | None:
        stmt = select(Feedback).where(Feedback.id == feedback_id, self._visible())
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, filters: FeedbackFilters, params: PageParams) -> tuple[list[Feedback], int, bool]:
        stmt: Any = select(Feedback).where(
            Feedback.auteur_sub == self.auth.sub if filters.mine else self._visible())
        if filters.type:
            stmt = stmt.where(Feedback.type_feedback == filters.type)
        if filters.traite is not None:
            stmt = stmt.where(Feedback.traite.is_(filters.traite))
        if filters.note is not None:
            stmt = stmt.where(Feedback.note == filters.note)
        if filters.q:
            stmt = stmt.where(contains_ci([Feedback.message, Feedback.contexte], filters.q))
        return await paginate(self.session, stmt.order_by(Feedback.created_at.desc(), Feedback.id), params)

    async def statistics(self) -> tuple[int, int, float | None, int, dict[str, int]]:
        totals = (await self.session.execute(select(
            func.count(), func.count().filter(Feedback.traite.is_(False)), func.avg(Feedback.note),
            func.count(Feedback.note)).where(self._visible()))).one()
        by_type = (await self.session.execute(select(Feedback.type_feedback, func.count()).where(self._visible())
                                              .group_by(Feedback.type_feedback))).all()
        average = float(totals[2]) if totals[2] is not None else None
        return int(totals[0]), int(totals[1]), average, int(totals[3]), {t: int(n) for t, n in by_type}

    def add(self, row: Any) -> None:
        self.session.add(row)
