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

from sqlalchemy import ColumnElement, false, func, select, true
from sqlalchemy.exc import IntegrityError

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import (
    CompteComptable,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    Organisation,
    Tresorerie,
)


class ComptabiliteRepository(ScopedRepository[EcritureComptable]):
    """Entries: global roles and the organisation's staff (the default scope). The books (chart of accounts,
    journals, the organisation itself) are also seen by the organisation's members."""

    model = EcritureComptable
    auth: AuthContext

    def _orgs(self, column: Any, *, entries: bool) -> ColumnElement[bool]:
        if self.auth.is_global:
            return true()
        orgs = self.auth.staff_organisations if entries else (
            self.auth.staff_organisations | self.auth.member_organisations)
        return column.in_(orgs) if orgs else false()

    def can_see_entries(self, organisation_id: uuid.UUID) -> bool:
        return self.auth.is_global or organisation_id in self.auth.staff_organisations

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

    async def get_compte_by_numero(self, organisation_id: uuid.UUID, numero: str) -> CompteComptable | None:
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
        return await self.get(ecriture_id)

    async def ecritures(self, params: PageParams, *, journal_id: uuid.UUID | None = None,
                        organisation_id: uuid.UUID | None = None, date_debut: date | None = None,
                        date_fin: date | None = None) -> tuple[list[EcritureComptable], int, bool]:
        stmt = self.select()
        if journal_id:
            stmt = stmt.where(EcritureComptable.journal_id == journal_id)
        if organisation_id:
            stmt = stmt.where(EcritureComptable.organisation_id == organisation_id)
        if date_debut:
            stmt = stmt.where(EcritureComptable.date_ecriture >= date_debut)
        if date_fin:
            stmt = stmt.where(EcritureComptable.date_ecriture <= date_fin)
        stmt = stmt.order_by(EcritureComptable.date_ecriture, EcritureComptable.numero_piece, EcritureComptable.id)
        return await self.paginate(stmt, params)

    async def journal_codes(self, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
        if not ids:
            return {}
        rows = await self.session.execute(
            select(JournalComptable.id, JournalComptable.code).where(JournalComptable.id.in_(ids)))
        return {r.id: r.code for r in rows}


class ComptabiliteSystemRepository(SystemRepository[EcritureComptable]):
    """What the automatic entries read and write on the system's behalf: the caller (if any) was permitted to move
    the money; its entry is posted whatever the caller may see of the books."""

    model = EcritureComptable

    async def get_compte_by_numero(self, organisation_id: uuid.UUID, numero: str) -> CompteComptable | None:
        stmt = select(CompteComptable).where(CompteComptable.organisation_id == organisation_id,
                                             CompteComptable.numero_compte == numero)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def comptes(self, organisation_id: uuid.UUID, numeros: list[str]) -> list[CompteComptable]:
        rows = await self.session.execute(select(CompteComptable).where(
            CompteComptable.organisation_id == organisation_id, CompteComptable.numero_compte.in_(numeros)))
        return list(rows.scalars())

    async def journal_by_code(self, organisation_id: uuid.UUID, code: str) -> JournalComptable | None:
        stmt = select(JournalComptable).where(JournalComptable.organisation_id == organisation_id,
                                              JournalComptable.code == code)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def journaux(self, organisation_id: uuid.UUID) -> list[JournalComptable]:
        rows = await self.session.execute(select(JournalComptable).where(
            JournalComptable.organisation_id == organisation_id))
        return list(rows.scalars())

    async def journal(self, journal_id: uuid.UUID) -> JournalComptable | None:
        return await self.session.get(JournalComptable, journal_id)

    async def ecriture_du_paiement(self, paiement_id: uuid.UUID) -> EcritureComptable | None:
        return (await self.session.execute(
            self.select().where(EcritureComptable.paiement_id == paiement_id))).scalar_one_or_none()

    async def premiere_ecriture_de_piece(self, organisation_id: uuid.UUID, piece: str) -> EcritureComptable | None:
        return (await self.session.execute(self.select().where(
            EcritureComptable.organisation_id == organisation_id, EcritureComptable.piece_reference == piece)
            .order_by(EcritureComptable.created_at).limit(1))).scalar_one_or_none()

    async def solde_numero(self, organisation_id: uuid.UUID, numero: str, jusqu_au: date | None = None) -> Decimal:
        """Debit minus credit of the lines posted to the organisation's account ``numero`` (entries dated up to
        ``jusqu_au`` when given; 0 if none)."""
        solde = func.coalesce(func.sum(LigneEcriture.debit), 0) - func.coalesce(func.sum(LigneEcriture.credit), 0)
        stmt = (select(solde).join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                .where(CompteComptable.organisation_id == organisation_id, CompteComptable.numero_compte == numero))
        if jusqu_au is not None:
            stmt = stmt.join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id).where(
                EcritureComptable.date_ecriture <= jusqu_au)
        return Decimal(str((await self.session.execute(stmt)).scalar_one()))

    async def lignes_avec_comptes(self, ecriture_id: uuid.UUID) -> list[tuple[LigneEcriture, CompteComptable]]:
        rows = await self.session.execute(
            select(LigneEcriture, CompteComptable).join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
            .where(LigneEcriture.ecriture_id == ecriture_id).order_by(LigneEcriture.id))
        return [(ligne, compte) for ligne, compte in rows.all()]

    async def ecritures_entre(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[EcritureComptable]:
        """The organisation's entries dated in [debut, fin] (opening balances: is the period still untouched?)."""
        return list((await self.session.execute(self.select().where(
            EcritureComptable.organisation_id == organisation_id, EcritureComptable.date_ecriture >= debut,
            EcritureComptable.date_ecriture <= fin).order_by(EcritureComptable.date_ecriture))).scalars())

    async def tresoreries(self, organisation_id: uuid.UUID, *, inactives: bool = False) -> list[Tresorerie]:
        """The organisation's active treasuries: which class-5 account a payment debits (cached by the caller);
        with ``inactives``, the closed ones too (a closed cash box still has a journal for the years it was used)."""
        stmt = select(Tresorerie).where(Tresorerie.organisation_id == organisation_id)
        if not inactives:
            stmt = stmt.where(Tresorerie.actif)
        return list((await self.session.execute(stmt.order_by(Tresorerie.numero_compte))).scalars())

    async def ajouter_unique(self, row: CompteComptable | JournalComptable) -> bool:
        """Insert a default account or journal; False when a concurrent transaction inserted it first (the caller
        re-reads it)."""
        try:
            async with self.session.begin_nested():
                self.session.add(row)
                await self.session.flush()
        except IntegrityError:
            return False
        return True
