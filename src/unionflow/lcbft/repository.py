from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import AlerteLcbFt, Organisation, ParametresLcbFt


@dataclass(frozen=True)
class AlerteFilters:
    date_debut: datetime | None = None
    date_fin: datetime | None = None
    organisation_id: uuid.UUID | None = None
    type_alerte: str | None = None
    traitee: bool | None = None


class LcbFtRepository(ScopedRepository[AlerteLcbFt]):
    """SUPER_ADMIN sees every organisation; an organisation administrator only its own (the default
    scope: alerts are organisation records)."""

    model = AlerteLcbFt

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        stmt = select(Organisation).where(Organisation.id == organisation_id, self.in_scope(Organisation.id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def alerte(self, alerte_id: uuid.UUID, *, for_update: bool = False) -> AlerteLcbFt | None:
        return await self.get(alerte_id, for_update=for_update)

    def _filtered(self, filters: AlerteFilters) -> Any:
        stmt = self.select()
        if filters.date_debut:
            stmt = stmt.where(AlerteLcbFt.date_alerte >= filters.date_debut)
        if filters.date_fin:
            stmt = stmt.where(AlerteLcbFt.date_alerte < filters.date_fin)
        if filters.organisation_id:
            stmt = stmt.where(AlerteLcbFt.organisation_id == filters.organisation_id)
        if filters.type_alerte:
            stmt = stmt.where(AlerteLcbFt.type_alerte == filters.type_alerte)
        if filters.traitee is not None:
            stmt = stmt.where(AlerteLcbFt.traitee == filters.traitee)
        return stmt

    async def alertes(self, filters: AlerteFilters, params: PageParams) -> tuple[list[AlerteLcbFt], int, bool]:
        stmt = self._filtered(filters).order_by(AlerteLcbFt.date_alerte.desc(), AlerteLcbFt.id)
        return await self.paginate(stmt, params)

    async def count(self, filters: AlerteFilters) -> int:
        stmt = self._filtered(filters).with_only_columns(func.count()).order_by(None)
        return int((await self.session.execute(stmt)).scalar_one())

    async def parametres(self, organisation_id: uuid.UUID, *, for_update: bool = False) -> ParametresLcbFt | None:
        stmt = select(ParametresLcbFt).where(ParametresLcbFt.organisation_id == organisation_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def all_parametres(self) -> list[ParametresLcbFt]:
        stmt = (select(ParametresLcbFt).where(self.in_scope(ParametresLcbFt.organisation_id))
                .order_by(ParametresLcbFt.organisation_id))
        return list((await self.session.execute(stmt)).scalars())


class DetectionRepository(SystemRepository[AlerteLcbFt]):
    """The screening's reads of its own tables (lcbft/detection.py), on the system's behalf once a payment or payout
    is settled. The cumulated amounts of payments and payouts are paiements' (lcbft/ports.py)."""

    model = AlerteLcbFt

    async def parametres(self, organisation_id: uuid.UUID) -> ParametresLcbFt | None:
        stmt = select(ParametresLcbFt).where(ParametresLcbFt.organisation_id == organisation_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def types_of_paiement(self, paiement_id: uuid.UUID) -> set[str]:
        """The kinds of alert already raised on a payment."""
        stmt = select(AlerteLcbFt.type_alerte).where(AlerteLcbFt.paiement_id == paiement_id)
        return set((await self.session.execute(stmt)).scalars())

    async def count_of_membre_since(self, organisation_id: uuid.UUID, membre_id: uuid.UUID | None,
                                    type_alerte: str, since: datetime) -> int:
        stmt = select(func.count()).select_from(AlerteLcbFt).where(
            AlerteLcbFt.membre_id == membre_id, AlerteLcbFt.organisation_id == organisation_id,
            AlerteLcbFt.type_alerte == type_alerte, AlerteLcbFt.date_alerte >= since)
        return int((await self.session.execute(stmt)).scalar_one())


class AlerteLcbFtSystemRepository(SystemRepository[AlerteLcbFt]):
    """Counts asked on the system's behalf after the caller's permission was checked: the monthly closing learns
    how many alerts block it, without the treasurer reading them (RS-LCB)."""

    model = AlerteLcbFt

    async def count_ouvertes(self, organisation_id: uuid.UUID) -> int:
        stmt = select(func.count()).select_from(AlerteLcbFt).where(
            AlerteLcbFt.organisation_id == organisation_id, AlerteLcbFt.traitee.is_(False))
        return int((await self.session.execute(stmt)).scalar_one())

    async def count_non_traitees(self) -> int:
        """Unprocessed alerts of every organisation (the monitoring's measure)."""
        stmt = select(func.count()).select_from(AlerteLcbFt).where(AlerteLcbFt.traitee.is_(False))
        return int((await self.session.execute(stmt)).scalar_one())
