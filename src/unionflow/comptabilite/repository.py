"""Queries of the books, scoped to what the caller may see.

Visibility: SUPER_ADMIN/ADMIN everything; organisation staff (bureau) the books of their organisations;
a plain member the chart of accounts and the journals of their organisations, never the entries (they name
members and amounts).
"""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture, Organisation


class ComptabiliteRepository:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    def _orgs(self, column: Any, *, entries: bool) -> ColumnElement[bool]:
        if self.auth.is_global:
            return true()
        orgs = self.auth.staff_organisations if entries else (
            self.auth.staff_organisations | self.auth.member_organisations)
        return column.in_(orgs) if orgs else false()

    def can_see_entries(self, organisation_id: uuid.UUID) -> bool:
        return self.auth.is_global or organisation_id in self.auth.staff_organisations

    def can_see_books(self, organisation_id: uuid.UUID) -> bool:
        return self.can_see_entries(organisation_id) or organisation_id in self.auth.member_organisations

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        stmt = select(Organisation).where(Organisation.id == organisation_id,
                                          self._orgs(Organisation.id, entries=False))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def compte(self, compte_id: uuid.UUID) -> CompteComptable | None:
        stmt = select(CompteComptable).where(CompteComptable.id == compte_id,
                                             self._orgs(CompteComptable.organisation_id, entries=False))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def compte_pour_modification(self, compte_id: uuid.UUID) -> CompteComptable | None:
        """Locked until commit: two concurrent edits of one account are applied one after the other."""
        stmt = select(CompteComptable).where(CompteComptable.id == compte_id,
                                             self._orgs(CompteComptable.organisation_id, entries=False))
        return (await self.session.execute(stmt.with_for_update())).scalar_one_or_none()

    async def solde(self, compte_id: uuid.UUID) -> Decimal:
        """Debit minus credit of every line ever posted to the account (all years)."""
        stmt = select(func.coalesce(func.sum(LigneEcriture.debit), 0) - func.coalesce(func.sum(LigneEcriture.credit), 0)
                      ).where(LigneEcriture.compte_id == compte_id)
        return Decimal(str((await self.session.execute(stmt)).scalar_one()))

    async def comptes(self, organisation_id: uuid.UUID | None, classe: int | None) -> list[CompteComptable]:
        stmt = select(CompteComptable).where(self._orgs(CompteComptable.organisation_id, entries=False))
        if organisation_id:
            stmt = stmt.where(CompteComptable.organisation_id == organisation_id)
        if classe:
            stmt = stmt.where(CompteComptable.classe == classe)
        stmt = stmt.order_by(CompteComptable.organisation_id, CompteComptable.numero_compte)
        return list((await self.session.execute(stmt)).scalars())

    async def comptes_by_ids(self, ids: set[uuid.UUID]) -> dict[uuid.UUID, CompteComptable]:
        """Unscoped: the service checks that every account belongs to the entry's organisation."""
        rows = await self.session.execute(select(CompteComptable).where(CompteComptable.id.in_(ids)))
        return {c.id: c for c in rows.scalars()}

    async def compte_by_numero(self, organisation_id: uuid.UUID, numero: str) -> CompteComptable | None:
        stmt = select(CompteComptable).where(CompteComptable.organisation_id == organisation_id,
                                             CompteComptable.numero_compte == numero)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def journal(self, journal_id: uuid.UUID) -> JournalComptable | None:
        stmt = select(JournalComptable).where(JournalComptable.id == journal_id,
                                              self._orgs(JournalComptable.organisation_id, entries=False))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def journaux(self, organisation_id: uuid.UUID | None) -> list[JournalComptable]:
        stmt = select(JournalComptable).where(self._orgs(JournalComptable.organisation_id, entries=False))
        if organisation_id:
            stmt = stmt.where(JournalComptable.organisation_id == organisation_id)
        stmt = stmt.order_by(JournalComptable.organisation_id, JournalComptable.code)
        return list((await self.session.execute(stmt)).scalars())

    async def journal_by_code(self, organisation_id: uuid.UUID, code: str) -> JournalComptable | None:
        stmt = select(JournalComptable).where(JournalComptable.organisation_id == organisation_id,
                                              JournalComptable.code == code)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def ecriture(self, ecriture_id: uuid.UUID) -> EcritureComptable | None:
        stmt = select(EcritureComptable).where(EcritureComptable.id == ecriture_id,
                                               self._orgs(EcritureComptable.organisation_id, entries=True))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    def _ecritures(self) -> Select[Any]:
        return select(EcritureComptable).where(self._orgs(EcritureComptable.organisation_id, entries=True))

    async def ecritures(self, params: PageParams, *, journal_id: uuid.UUID | None = None,
                        organisation_id: uuid.UUID | None = None, date_debut: date | None = None,
                        date_fin: date | None = None) -> tuple[list[EcritureComptable], int, bool]:
        stmt = self._ecritures()
        if journal_id:
            stmt = stmt.where(EcritureComptable.journal_id == journal_id)
        if organisation_id:
            stmt = stmt.where(EcritureComptable.organisation_id == organisation_id)
        if date_debut:
            stmt = stmt.where(EcritureComptable.date_ecriture >= date_debut)
        if date_fin:
            stmt = stmt.where(EcritureComptable.date_ecriture <= date_fin)
        stmt = stmt.order_by(EcritureComptable.date_ecriture, EcritureComptable.numero_piece, EcritureComptable.id)
        return await paginate(self.session, stmt, params)

    async def journal_codes(self, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
        if not ids:
            return {}
        rows = await self.session.execute(
            select(JournalComptable.id, JournalComptable.code).where(JournalComptable.id.in_(ids)))
        return {r.id: r.code for r in rows}
