from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import func, select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import Versement
from unionflow.models.versement import StatutVersement

# Money already paid out or being paid out.
ENGAGES = (StatutVersement.EN_COURS, StatutVersement.REUSSI)


@dataclass(frozen=True)
class VersementFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    mode: str | None = None
    objet_type: str | None = None


class VersementRepository(ScopedRepository[Versement]):
    """Payouts are organisation records: global roles and the organisation's staff (the default scope)."""

    model = Versement

    async def search(self, f: VersementFilters, params: PageParams) -> tuple[list[Versement], int, bool]:
        stmt = self.select()
        if f.organisation_id:
            stmt = stmt.where(Versement.organisation_id == f.organisation_id)
        if f.statut:
            stmt = stmt.where(Versement.statut == f.statut)
        if f.mode:
            stmt = stmt.where(Versement.mode == f.mode)
        if f.objet_type:
            stmt = stmt.where(Versement.objet_type == f.objet_type)
        return await self.paginate(stmt.order_by(Versement.created_at.desc(), Versement.id), params)

    async def verse(self, organisation_id: uuid.UUID, objet_type: str) -> Decimal:
        """Already paid out or being paid out by the organisation for one kind of object."""
        paid_out = (await self.session.execute(
            select(func.coalesce(func.sum(Versement.montant), 0))
            .where(Versement.organisation_id == organisation_id, Versement.objet_type == objet_type,
                   Versement.statut.in_(ENGAGES)))).scalar_one()
        return Decimal(str(paid_out))

    async def engage(self, objet_type: str, objet_id: uuid.UUID) -> Decimal:
        """Already paid out or being paid out for one object (e.g. an aid request)."""
        total = (await self.session.execute(
            select(func.coalesce(func.sum(Versement.montant), 0))
            .where(Versement.objet_type == objet_type, Versement.objet_id == objet_id,
                   Versement.statut.in_(ENGAGES)))).scalar_one()
        return Decimal(str(total))


class VersementsDeLAnneeRepository(SystemRepository[Versement]):
    """Payouts delivered in a period, for the yearly report. Unscoped: the caller checked that the organisation's
    books are visible to the reader."""

    model = Versement

    async def reussis(self, organisation_id: uuid.UUID, objet_type: str, debut: datetime, fin: datetime
                      ) -> tuple[int, Decimal]:
        """Delivered payouts for one kind of object, executed from ``debut`` (included) to ``fin`` (excluded)."""
        stmt = select(func.count(), func.coalesce(func.sum(Versement.montant), 0)).where(
            Versement.organisation_id == organisation_id, Versement.objet_type == objet_type,
            Versement.statut == StatutVersement.REUSSI, Versement.date_execution >= debut,
            Versement.date_execution < fin)
        row = (await self.session.execute(stmt)).one()
        return int(row[0]), Decimal(str(row[1]))
