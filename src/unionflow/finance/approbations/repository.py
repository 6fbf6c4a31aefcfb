from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import Approbation, DecisionApprobation, DemandeAide, Organisation, Versement
from unionflow.models.finance import StatutApprobation


@dataclass(frozen=True)
class ApprobationFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    type_objet: str | None = None
    objet_id: uuid.UUID | None = None
    a_decider: bool = False


class ApprobationRepository(ScopedRepository[Approbation]):
    """Finance records are the bureau's: union administrators see all, organisation staff their organisations
    (the default scope)."""

    model = Approbation
    auth: AuthContext

    async def search(self, filters: ApprobationFilters, params: PageParams) -> tuple[list[Approbation], int, bool]:
        stmt = self.select()
        if filters.organisation_id:
            stmt = stmt.where(Approbation.organisation_id == filters.organisation_id)
        if filters.statut:
            stmt = stmt.where(Approbation.statut == filters.statut)
        if filters.type_objet:
            stmt = stmt.where(Approbation.type_objet == filters.type_objet)
        if filters.objet_id:
            stmt = stmt.where(Approbation.objet_id == filters.objet_id)
        if filters.a_decider:
            # What the caller may still decide: pending, in an organisation they sit for, neither requested
            # nor already approved at a lower level by them.
            mine = select(DecisionApprobation.id).where(DecisionApprobation.approbation_id == Approbation.id,
                                                        DecisionApprobation.approbateur_sub == self.auth.personne)
            stmt = stmt.where(Approbation.statut == StatutApprobation.EN_ATTENTE,
                              Approbation.organisation_id.in_(self.auth.staff_organisations),
                              Approbation.demande_par_sub != self.auth.personne, ~mine.exists())
        order = Approbation.date_demande.asc() if filters.a_decider else Approbation.date_demande.desc()
        return await self.paginate(stmt.order_by(order, Approbation.id), params)

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        stmt = select(Organisation).where(Organisation.id == organisation_id,
                                          self.in_scope(Organisation.id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def versement(self, versement_id: uuid.UUID) -> Versement | None:
        return await self.session.get(Versement, versement_id)

    async def demande_aide(self, demande_id: uuid.UUID) -> DemandeAide | None:
        return await self.session.get(DemandeAide, demande_id)

    async def courantes(self, type_objet: str, objet_id: uuid.UUID, *, for_update: bool = False) -> list[Approbation]:
        """Requests about one object that are not cancelled, newest first."""
        stmt = (select(Approbation).where(Approbation.type_objet == type_objet, Approbation.objet_id == objet_id,
                                          Approbation.statut != StatutApprobation.ANNULEE)
                .order_by(Approbation.date_demande.desc(), Approbation.id))
        if for_update:
            stmt = stmt.with_for_update()
        return list((await self.session.execute(stmt)).scalars())

    def add(self, row: Any) -> None:
        self.session.add(row)
