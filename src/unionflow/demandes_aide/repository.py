from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import false, func, select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import DemandeAide
from unionflow.models.demande_aide import StatutDemandeAide


@dataclass(frozen=True)
class DemandeFilters:
    statut: str | None = None
    type: str | None = None
    urgence: str | None = None
    only_mine: bool = False


class DemandeAideRepository(ScopedRepository[DemandeAide]):
    """SUPER_ADMIN/ADMIN see every request; organisation staff those of their organisations; a member their own."""

    model = DemandeAide
    personal = True
    auth: AuthContext

    async def search(self, filters: DemandeFilters, params: PageParams) -> tuple[list[DemandeAide], int, bool]:
        stmt: Any = select(DemandeAide)
        if filters.only_mine:
            stmt = stmt.where(DemandeAide.membre_id == self.auth.membre_id if self.auth.membre_id else false())
        else:
            stmt = stmt.where(self.scope())
        if filters.statut:
            stmt = stmt.where(DemandeAide.statut == filters.statut)
        if filters.type:
            stmt = stmt.where(DemandeAide.type_aide == filters.type)
        if filters.urgence:
            stmt = stmt.where(DemandeAide.urgence == filters.urgence)
        stmt = stmt.order_by(DemandeAide.date_soumission.desc(), DemandeAide.id)
        return await self.paginate(stmt, params)


class DemandeAideSystemRepository(SystemRepository[DemandeAide]):
    """Aid requests read by the payouts of an organisation whose treasury was already permitted."""

    model = DemandeAide

    async def lock_for_organisation(self, demande_id: uuid.UUID, organisation_id: uuid.UUID) -> DemandeAide | None:
        """The organisation's aid request a payout settles, locked: payouts against it are checked one at a time."""
        return (await self.session.execute(self.select().where(
            DemandeAide.id == demande_id, DemandeAide.organisation_id == organisation_id).with_for_update()
        )).scalar_one_or_none()

    async def accordees(self, organisation_id: uuid.UUID, debut: datetime, fin: datetime) -> tuple[int, Decimal]:
        """Requests granted with a decision dated from ``debut`` (included) to ``fin`` (excluded): their number and
        the amount granted (the yearly report)."""
        stmt = select(func.count(), func.coalesce(func.sum(DemandeAide.montant_accorde), 0)).where(
            DemandeAide.organisation_id == organisation_id, DemandeAide.statut == StatutDemandeAide.APPROUVEE,
            DemandeAide.date_decision >= debut, DemandeAide.date_decision < fin)
        row = (await self.session.execute(stmt)).one()
        return int(row[0]), Decimal(str(row[1]))
