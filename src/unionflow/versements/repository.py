from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.visibility import scope
from unionflow.models import DemandeAide, Paiement, PaiementAllocation, Versement


@dataclass(frozen=True)
class VersementFilters:
    organisation_id: uuid.UUID | None = None
    statut: str | None = None
    mode: str | None = None
    objet_type: str | None = None


class VersementRepository:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def _visible(self) -> ColumnElement[bool]:
        return scope(self.auth, Versement.organisation_id)

    def _select(self) -> Select[Any]:
        return select(Versement).where(self._visible())

    async def get(self, versement_id: uuid.UUID, *, for_update: bool = False) -> Versement | None:
        stmt = self._select().where(Versement.id == versement_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, f: VersementFilters, params: PageParams) -> tuple[list[Versement], int, bool]:
        stmt = self._select()
        if f.organisation_id:
            stmt = stmt.where(Versement.organisation_id == f.organisation_id)
        if f.statut:
            stmt = stmt.where(Versement.statut == f.statut)
        if f.mode:
            stmt = stmt.where(Versement.mode == f.mode)
        if f.objet_type:
            stmt = stmt.where(Versement.objet_type == f.objet_type)
        return await paginate(self.session, stmt.order_by(Versement.created_at.desc(), Versement.id), params)

    async def available(self, organisation_id: uuid.UUID, objet_type: str) -> Decimal:
        """Collected (confirmed allocations of that kind) minus what is already paid out or being paid out."""
        column = PaiementAllocation.cotisation_id if objet_type == "COTISATIONS" else PaiementAllocation.adhesion_id
        collected = (await self.session.execute(
            select(func.coalesce(func.sum(PaiementAllocation.montant), 0))
            .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
            .where(Paiement.organisation_id == organisation_id, Paiement.statut == "VALIDE",
                   column.is_not(None)))).scalar_one()
        paid_out = (await self.session.execute(
            select(func.coalesce(func.sum(Versement.montant), 0))
            .where(Versement.organisation_id == organisation_id, Versement.objet_type == objet_type,
                   Versement.statut.in_(("EN_COURS", "REUSSI"))))).scalar_one()
        return Decimal(str(collected)) - Decimal(str(paid_out))

    async def demande_aide(self, demande_id: uuid.UUID, organisation_id: uuid.UUID) -> DemandeAide | None:
        """The aid request a payout settles, locked: payouts against it are checked one at a time."""
        return (await self.session.execute(select(DemandeAide).where(
            DemandeAide.id == demande_id, DemandeAide.organisation_id == organisation_id).with_for_update()
        )).scalar_one_or_none()

    async def engage(self, objet_type: str, objet_id: uuid.UUID) -> Decimal:
        """Already paid out or being paid out for one object (e.g. an aid request)."""
        total = (await self.session.execute(
            select(func.coalesce(func.sum(Versement.montant), 0))
            .where(Versement.objet_type == objet_type, Versement.objet_id == objet_id,
                   Versement.statut.in_(("EN_COURS", "REUSSI"))))).scalar_one()
        return Decimal(str(total))
