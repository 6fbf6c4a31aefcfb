from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, false, func, or_, select, true, update

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.query import contient
from unionflow.core.repository import ScopedRepository
from unionflow.models import Suggestion, SuggestionVote
from unionflow.models.suggestion import StatutSuggestion


@dataclass(frozen=True)
class SuggestionFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    categorie: str | None = None
    q: str | None = None
    mine: bool = False
    tri: str = "VOTES"


class SuggestionRepository(ScopedRepository[Suggestion]):
    """Ideas are shared inside the organisation: its members and staff see them all; ADMIN everything."""

    model = Suggestion
    auth: AuthContext

    def scope(self) -> ColumnElement[bool]:
        if self.auth.is_global:
            return true()
        orgs = self.auth.member_organisations | self.auth.staff_organisations
        clauses: list[ColumnElement[bool]] = []
        if orgs:
            clauses.append(Suggestion.organisation_id.in_(orgs))
        if self.auth.membre_id is not None:
            # A former member still sees the ideas they proposed.
            clauses.append(Suggestion.membre_id == self.auth.membre_id)
        return or_(*clauses) if clauses else false()

    async def search(self, filters: SuggestionFilters, params: PageParams) -> tuple[list[Suggestion], int, bool]:
        stmt: Any = self.select()
        if filters.organisation_id:
            stmt = stmt.where(Suggestion.organisation_id == filters.organisation_id)
        if filters.statut:
            stmt = stmt.where(Suggestion.statut == filters.statut)
        if filters.categorie:
            stmt = stmt.where(Suggestion.categorie == filters.categorie)
        if filters.mine:
            stmt = stmt.where(Suggestion.membre_id == self.auth.membre_id if self.auth.membre_id else false())
        if filters.q:
            stmt = stmt.where(contient(Suggestion.recherche, filters.q))
        if filters.tri == "DATE":
            stmt = stmt.order_by(Suggestion.created_at.desc(), Suggestion.id)
        else:
            stmt = stmt.order_by(Suggestion.nombre_votes.desc(), Suggestion.created_at.desc(), Suggestion.id)
        return await self.paginate(stmt, params)

    async def voted(self, ids: list[uuid.UUID]) -> set[uuid.UUID]:
        if not ids or self.auth.membre_id is None:
            return set()
        stmt = select(SuggestionVote.suggestion_id).where(SuggestionVote.suggestion_id.in_(ids),
                                                          SuggestionVote.membre_id == self.auth.membre_id)
        return set((await self.session.execute(stmt)).scalars())

    async def remove_vote(self, suggestion_id: uuid.UUID, membre_id: uuid.UUID) -> bool:
        result: Any = await self.session.execute(delete(SuggestionVote).where(
            SuggestionVote.suggestion_id == suggestion_id, SuggestionVote.membre_id == membre_id))
        return bool(result.rowcount)

    async def count_votes(self, suggestion_id: uuid.UUID) -> int:
        stmt = select(func.count()).select_from(SuggestionVote).where(SuggestionVote.suggestion_id == suggestion_id)
        return int((await self.session.execute(stmt)).scalar_one())

    async def effacer_auteurs_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): a suggestion settled (rejected or carried out) since
        before ``limite`` stays in the organisation's history, but its author's name, shown to every member,
        becomes ``texte``. The votes stay (they hold no name, and ``nombre_votes`` counts them)."""
        stmt = (update(Suggestion)
                .where(Suggestion.statut.in_((StatutSuggestion.REJETEE.value, StatutSuggestion.REALISEE.value)),
                       Suggestion.updated_at < limite, Suggestion.auteur_nom != texte)
                .values(auteur_nom=texte))
        return await self.lignes_touchees(stmt)
