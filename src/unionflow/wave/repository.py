from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, Select, false, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.models import CompteWave, TransactionWave


class WaveRepository:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def _orgs(self, column: Any) -> ColumnElement[bool]:
        if self.auth.is_global:
            return true()
        staff = self.auth.staff_organisations
        return column.in_(staff) if staff else false()

    def _comptes(self) -> Select[Any]:
        return select(CompteWave).where(self._orgs(CompteWave.organisation_id))

    async def comptes(self, organisation_id: uuid.UUID | None) -> list[CompteWave]:
        stmt = self._comptes()
        if organisation_id:
            stmt = stmt.where(CompteWave.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(CompteWave.created_at, CompteWave.id))).scalars())

    async def compte(self, compte_id: uuid.UUID, *, for_update: bool = False) -> CompteWave | None:
        stmt = self._comptes().where(CompteWave.id == compte_id)
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def transactions(self, params: PageParams, organisation_id: uuid.UUID | None, type_transaction: str | None,
                           paiement_id: uuid.UUID | None) -> tuple[list[TransactionWave], int, bool]:
        stmt = select(TransactionWave).where(self._orgs(TransactionWave.organisation_id))
        if organisation_id:
            stmt = stmt.where(TransactionWave.organisation_id == organisation_id)
        if type_transaction:
            stmt = stmt.where(TransactionWave.type_transaction == type_transaction)
        if paiement_id:
            stmt = stmt.where(TransactionWave.paiement_id == paiement_id)
        return await paginate(self.session, stmt.order_by(TransactionWave.created_at.desc(), TransactionWave.id),
                              params)
