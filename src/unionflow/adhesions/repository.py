"""Adhesion queries, scoped to what the caller may see (docs/adhesions-cotisations.md, "Visibilité")."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import Adhesion, Organisation
from unionflow.models.adhesion import StatutAdhesion


class AdhesionRepository(ScopedRepository[Adhesion]):
    model = Adhesion
    personal = True
    auth: AuthContext

    async def get(self, row_id: uuid.UUID, *, for_update: bool = False) -> Adhesion | None:
        if not for_update:
            return await super().get(row_id)
        # The row may have changed while we waited for the lock: read its committed values.
        stmt = (self.select().where(Adhesion.id == row_id).with_for_update()
                .execution_options(populate_existing=True))
        row: Adhesion | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return row

    async def get_with_organisation(self, adhesion_id: uuid.UUID) -> tuple[Adhesion, Organisation] | None:
        """The adhesion locked (committed values, as ``get(for_update=True)``) with its organisation, unlocked,
        in one statement: a decision needs both."""
        stmt = (select(Adhesion, Organisation).join(Organisation, Organisation.id == Adhesion.organisation_id)
                .where(self.scope(), Adhesion.id == adhesion_id)
                .with_for_update(of=Adhesion).execution_options(populate_existing=True))
        row = (await self.session.execute(stmt)).first()
        return (row[0], row[1]) if row is not None else None

    async def by_reference(self, numero: str) -> Adhesion | None:
        return (await self.session.execute(
            self.select().where(Adhesion.numero_reference == numero))).scalar_one_or_none()

    async def open_for(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> Adhesion | None:
        """A pending or approved (unpaid) application of this member to this organisation, if any."""
        stmt = select(Adhesion).where(
            Adhesion.membre_id == membre_id, Adhesion.organisation_id == organisation_id,
            Adhesion.statut.in_([StatutAdhesion.EN_ATTENTE, StatutAdhesion.APPROUVEE])).limit(1)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, params: PageParams, *, statut: str | None = None, membre_id: uuid.UUID | None = None,
                   organisation_id: uuid.UUID | None = None) -> tuple[list[Adhesion], int, bool]:
        stmt = self.select()
        if statut is not None:
            stmt = stmt.where(Adhesion.statut == statut)
        if membre_id is not None:
            stmt = stmt.where(Adhesion.membre_id == membre_id)
        if organisation_id is not None:
            stmt = stmt.where(Adhesion.organisation_id == organisation_id)
        return await self.paginate(stmt.order_by(Adhesion.created_at.desc(), Adhesion.id.desc()), params)

    async def stats(self) -> list[Any]:
        """One aggregate row per status over the visible adhesions (no row is loaded)."""
        stmt = (select(Adhesion.statut, func.count().label("nombre"),
                       func.coalesce(func.sum(Adhesion.frais_adhesion), 0).label("frais"),
                       func.coalesce(func.sum(Adhesion.montant_paye), 0).label("paye"))
                .where(self.scope())
                .group_by(Adhesion.statut))
        return list((await self.session.execute(stmt)).all())
