"""Queries on the register of volunteer time (``contribution_benevole``)."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.models.don import ContributionBenevole, StatutContribution

ZERO = Decimal("0.00")


class BenevolatRepository(SystemRepository[ContributionBenevole]):
    """Unscoped: the service checked that the caller reads the organisation's staff records; also
    comptabilite.ports.Benevolat for the SYCEBNL notes."""

    model = ContributionBenevole

    async def periode(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[ContributionBenevole]:
        """Every line of the period, cancelled ones included (the register shows them struck through)."""
        c = ContributionBenevole
        stmt = (select(c).where(c.organisation_id == organisation_id, c.date_contribution >= debut,
                                c.date_contribution <= fin)
                .order_by(c.date_contribution, c.created_at, c.id))
        return list((await self.session.execute(stmt)).scalars())

    async def totaux(self, organisation_id: uuid.UUID, debut: date, fin: date) -> tuple[int, Decimal, Decimal]:
        """(contributions, hours, value) of the period's lines still recorded (a cancelled line counts nothing)."""
        c = ContributionBenevole
        stmt = (select(func.count(), func.sum(c.heures), func.sum(c.valeur))
                .where(c.organisation_id == organisation_id, c.date_contribution >= debut,
                       c.date_contribution <= fin, c.statut == StatutContribution.ENREGISTREE.value))
        nombre, heures, valeur = (await self.session.execute(stmt)).one()
        return int(nombre), Decimal(str(heures or ZERO)), Decimal(str(valeur or ZERO))
