"""Offers are shared inside the organisation: a member sees their own and the ACTIVE offers of their
organisations; the organisation's staff see all of its offers; ADMIN/SUPER_ADMIN everything."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, and_, case, false, or_, select, true

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import DemandeAide, PropositionAide
from unionflow.models.demande_aide import StatutDemandeAide, UrgenceDemandeAide
from unionflow.models.proposition_aide import StatutProposition

OUVERTES = (StatutDemandeAide.SOUMISE, StatutDemandeAide.APPROUVEE)
U = UrgenceDemandeAide
URGENCE = case({U.CRITIQUE: 0, U.ELEVEE: 1, U.NORMALE: 2, U.FAIBLE: 3}, value=DemandeAide.urgence, else_=4)


@dataclass(frozen=True)
class PropositionFilters:
    organisation_id: uuid.UUID | None = None
    type: str | None = None
    nature: str | None = None
    statut: str | None = None
    mes_propositions: bool = False


class PropositionAideRepository(ScopedRepository[PropositionAide]):
    model = PropositionAide
    personal = True
    auth: AuthContext

    def scope(self) -> ColumnElement[bool]:
        """The default rule (staff: their organisations', member: their own), plus the ACTIVE offers of the
        member's organisations."""
        if self.auth.is_global:
            return true()
        clauses: list[ColumnElement[bool]] = [super().scope()]
        if self.auth.member_organisations:
            clauses.append(and_(PropositionAide.organisation_id.in_(self.auth.member_organisations),
                                PropositionAide.statut == StatutProposition.ACTIVE))
        return or_(*clauses)

    async def search(self, filters: PropositionFilters, params: PageParams
                     ) -> tuple[list[PropositionAide], int, bool]:
        stmt: Any = self.select()
        if filters.mes_propositions:
            mine = self.auth.membre_id
            stmt = stmt.where(PropositionAide.membre_id == mine if mine else false())
        if filters.organisation_id:
            stmt = stmt.where(PropositionAide.organisation_id == filters.organisation_id)
        if filters.type:
            stmt = stmt.where(PropositionAide.type_aide == filters.type)
        if filters.nature:
            stmt = stmt.where(PropositionAide.nature == filters.nature)
        if filters.statut:
            stmt = stmt.where(PropositionAide.statut == filters.statut)
        return await self.paginate(stmt.order_by(PropositionAide.created_at.desc(), PropositionAide.id), params)

    def _demande_libre(self) -> ColumnElement[bool]:
        linked = select(PropositionAide.id).where(PropositionAide.demande_aide_id == DemandeAide.id,
                                                  PropositionAide.statut == StatutProposition.RESERVEE)
        return ~linked.exists()

    async def demandes_correspondantes(self, proposition: PropositionAide, limit: int) -> list[DemandeAide]:
        """Open requests of the same organisation and type, not yet covered by a reserved offer, not the
        offerer's own; the most urgent and oldest first."""
        stmt = (select(DemandeAide)
                .where(DemandeAide.organisation_id == proposition.organisation_id,
                       DemandeAide.type_aide == proposition.type_aide, DemandeAide.statut.in_(OUVERTES),
                       DemandeAide.membre_id != proposition.membre_id, self._demande_libre())
                .order_by(URGENCE, DemandeAide.date_soumission, DemandeAide.id).limit(limit))
        return list((await self.session.execute(stmt)).scalars())

    async def propositions_correspondantes(self, demande: DemandeAide, limit: int) -> list[PropositionAide]:
        today = date.today()
        stmt = (select(PropositionAide)
                .where(PropositionAide.organisation_id == demande.organisation_id,
                       PropositionAide.type_aide == demande.type_aide,
                       PropositionAide.statut == StatutProposition.ACTIVE,
                       PropositionAide.membre_id != demande.membre_id,
                       or_(PropositionAide.disponible_jusqu_au.is_(None),
                           PropositionAide.disponible_jusqu_au >= today))
                .order_by(PropositionAide.created_at, PropositionAide.id).limit(limit))
        return list((await self.session.execute(stmt)).scalars())

    async def demande(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeAide | None:
        stmt = select(DemandeAide).where(DemandeAide.id == demande_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def reservee_pour(self, demande_id: uuid.UUID) -> PropositionAide | None:
        stmt = select(PropositionAide).where(PropositionAide.demande_aide_id == demande_id,
                                             PropositionAide.statut == StatutProposition.RESERVEE)
        return (await self.session.execute(stmt)).scalars().first()
