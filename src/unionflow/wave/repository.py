from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import CompteWave, TransactionWave


class WaveRepository(ScopedRepository[CompteWave]):
    """Wave accounts and their transactions: organisation records, seen by global roles and the
    organisation's staff (the default scope; accounts have no member)."""

    model = CompteWave

    async def comptes(self, organisation_id: uuid.UUID | None) -> list[CompteWave]:
        stmt = self.select()
        if organisation_id:
            stmt = stmt.where(CompteWave.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(CompteWave.created_at, CompteWave.id))).scalars())

    async def compte(self, compte_id: uuid.UUID, *, for_update: bool = False) -> CompteWave | None:
        return await self.get(compte_id, for_update=for_update)

    async def transactions(self, params: PageParams, organisation_id: uuid.UUID | None, type_transaction: str | None,
                           paiement_id: uuid.UUID | None) -> tuple[list[TransactionWave], int, bool]:
        stmt = select(TransactionWave).where(self.in_scope(TransactionWave.organisation_id))
        if organisation_id:
            stmt = stmt.where(TransactionWave.organisation_id == organisation_id)
        if type_transaction:
            stmt = stmt.where(TransactionWave.type_transaction == type_transaction)
        if paiement_id:
            stmt = stmt.where(TransactionWave.paiement_id == paiement_id)
        return await self.paginate(stmt.order_by(TransactionWave.created_at.desc(), TransactionWave.id), params)
