"""Queries on the treasuries. Visibility: global roles and the organisation's staff (the default scope)."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import Tresorerie


class TresorerieRepository(ScopedRepository[Tresorerie]):
    model = Tresorerie

    async def de_organisation(self, organisation_id: uuid.UUID) -> list[Tresorerie]:
        stmt = self.select().where(Tresorerie.organisation_id == organisation_id).order_by(
            Tresorerie.type_tresorerie, Tresorerie.numero_compte)
        return list((await self.session.execute(stmt)).scalars())


class TresorerieSystemRepository(SystemRepository[Tresorerie]):
    """On the system's behalf, after the caller was permitted to move the money (payouts, refunds, transfers)."""

    model = Tresorerie

    async def de_organisation(self, organisation_id: uuid.UUID) -> list[Tresorerie]:
        stmt = select(Tresorerie).where(Tresorerie.organisation_id == organisation_id)
        return list((await self.session.execute(stmt)).scalars())

    async def par_defaut(self, organisation_id: uuid.UUID, type_tresorerie: str) -> Tresorerie | None:
        stmt = select(Tresorerie).where(Tresorerie.organisation_id == organisation_id,
                                        Tresorerie.type_tresorerie == type_tresorerie, Tresorerie.par_defaut,
                                        Tresorerie.actif)
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none()

    async def par_compte(self, organisation_id: uuid.UUID, numero: str) -> Tresorerie | None:
        stmt = select(Tresorerie).where(Tresorerie.organisation_id == organisation_id,
                                        Tresorerie.numero_compte == numero)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def lock_many(self, ids: list[uuid.UUID]) -> dict[uuid.UUID, Tresorerie]:
        """Locked until commit, in id order (two transfers in opposite directions never deadlock): the balance a
        movement is checked against cannot change under it. On SQLite writes are serialised anyway."""
        stmt = select(Tresorerie).where(Tresorerie.id.in_(ids)).order_by(Tresorerie.id).with_for_update()
        return {t.id: t for t in (await self.session.execute(stmt)).scalars()}
