from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, false, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.visibility import scope
from unionflow.models import DemandeAide


@dataclass(frozen=True)
class DemandeFilters:
    statut: str | None = None
    type: str | None = None
    urgence: str | None = None
    only_mine: bool = False


class DemandeAideRepository:
    """SUPER_ADMIN/ADMIN see every request; organisation staff those of their organisations; a member their own."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def _visible(self) -> ColumnElement[bool]:
        return scope(self.auth, DemandeAide.organisation_id, DemandeAide.membre_id)

    async def get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeAide | None:
        stmt = select(DemandeAide).where(DemandeAide.id == demande_id, self._visible())
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, filters: DemandeFilters, params: PageParams) -> tuple[list[DemandeAide], int, bool]:
        stmt: Any = select(DemandeAide)
        if filters.only_mine:
            stmt = stmt.where(DemandeAide.membre_id == self.auth.membre_id if self.auth.membre_id else false())
        else:
            stmt = stmt.where(self._visible())
        if filters.statut:
            stmt = stmt.where(DemandeAide.statut == filters.statut)
        if filters.type:
            stmt = stmt.where(DemandeAide.type_aide == filters.type)
        if filters.urgence:
            stmt = stmt.where(DemandeAide.urgence == filters.urgence)
        stmt = stmt.order_by(DemandeAide.date_soumission.desc(), DemandeAide.id)
        return await paginate(self.session, stmt, params)

    def add(self, demande: DemandeAide) -> None:
        self.session.add(demande)
