"""Budget queries, scoped to the caller's organisations, and the realised amounts read from the books."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import Budget, CompteComptable, EcritureComptable, LigneEcriture, Organisation


@dataclass(frozen=True)
class BudgetFilters:
    organisation_id: uuid.UUID | None = None
    annee: int | None = None
    statut: str | None = None


@dataclass(frozen=True)
class MouvementBudget:
    compte_id: uuid.UUID
    numero_compte: str
    debit: Decimal
    credit: Decimal


class BudgetRepository(ScopedRepository[Budget]):
    """Finance records are the bureau's: union administrators see all, organisation staff their organisations
    (the default scope)."""

    model = Budget
    auth: AuthContext

    async def search(self, filters: BudgetFilters, params: PageParams) -> tuple[list[Budget], int, bool]:
        stmt: Any = self.select()
        if filters.organisation_id:
            stmt = stmt.where(Budget.organisation_id == filters.organisation_id)
        if filters.annee:
            stmt = stmt.where(Budget.annee == filters.annee)
        if filters.statut:
            stmt = stmt.where(Budget.statut == filters.statut)
        return await self.paginate(stmt.order_by(Budget.annee.desc(), Budget.id), params)

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        stmt = select(Organisation).where(Organisation.id == organisation_id,
                                          self.in_scope(Organisation.id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def exists_for_year(self, organisation_id: uuid.UUID, annee: int) -> bool:
        stmt = select(Budget.id).where(Budget.organisation_id == organisation_id, Budget.annee == annee)
        return (await self.session.execute(stmt)).first() is not None

    async def comptes(self, ids: set[uuid.UUID]) -> dict[uuid.UUID, CompteComptable]:
        if not ids:
            return {}
        rows = await self.session.execute(select(CompteComptable).where(CompteComptable.id.in_(ids)))
        return {c.id: c for c in rows.scalars()}

    async def mouvements(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[MouvementBudget]:
        """Debit and credit totals per account over the period, summed by the database."""
        stmt = (
            select(CompteComptable.id, CompteComptable.numero_compte,
                   func.coalesce(func.sum(LigneEcriture.debit), 0), func.coalesce(func.sum(LigneEcriture.credit), 0))
            .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
            .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
            .where(EcritureComptable.organisation_id == organisation_id,
                   CompteComptable.organisation_id == organisation_id,
                   EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin)
            .group_by(CompteComptable.id, CompteComptable.numero_compte)
        )
        rows = (await self.session.execute(stmt)).all()
        return [MouvementBudget(r[0], r[1], Decimal(r[2]), Decimal(r[3])) for r in rows]

    def add(self, budget: Budget) -> None:
        self.session.add(budget)

    async def delete(self, budget: Budget) -> None:
        await self.session.delete(budget)
