"""Reading the books in tests: a class-5 balance, the lines of a piece (in order, or by account)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from unionflow.models import CompteComptable, EcritureComptable, LigneEcriture, Organisation


async def solde(db, org, numero) -> Decimal:
    stmt = (select(func.coalesce(func.sum(LigneEcriture.debit), 0) - func.coalesce(func.sum(LigneEcriture.credit), 0))
            .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
            .where(CompteComptable.organisation_id == org.id, CompteComptable.numero_compte == numero))
    return Decimal(str((await db.execute(stmt.execution_options(populate_existing=True))).scalar_one()))


async def lignes_de_piece(db, org, piece) -> list[tuple[str, Decimal, Decimal]]:
    rows = await db.execute(
        select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
        .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == org.id, EcritureComptable.piece_reference == piece)
        .order_by(EcritureComptable.created_at, LigneEcriture.ordre))
    return [(n, Decimal(str(d)), Decimal(str(c))) for n, d, c in rows.all()]


async def lignes_par_compte(db: Any, org: Organisation, piece: str) -> dict[str, tuple[Decimal, Decimal]]:
    """Account number → (debit, credit) of the organisation's entries with this piece reference."""
    rows = (await db.execute(
        select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
        .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == org.id, EcritureComptable.piece_reference == piece))).all()
    return {n: (Decimal(d), Decimal(c)) for n, d, c in rows}


async def totaux(db: Any, org: Organisation) -> tuple[int, Decimal, Decimal]:
    """(lines, total debit, total credit) of every entry of the organisation: the books to the franc."""
    n, d, c = (await db.execute(
        select(func.count(LigneEcriture.id), func.coalesce(func.sum(LigneEcriture.debit), 0),
               func.coalesce(func.sum(LigneEcriture.credit), 0))
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == org.id).execution_options(populate_existing=True))).one()
    return int(n), Decimal(str(d)), Decimal(str(c))
