"""The ledger lines behind the cash-basis statements: every line of the entries that move a class-5 account."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture

CLASSE_TRESORERIE = 5


@dataclass(frozen=True)
class LigneCaisse:
    ecriture_id: uuid.UUID
    date_ecriture: date
    numero_piece: str
    code_journal: str
    libelle: str
    numero_compte: str
    libelle_compte: str
    classe: int
    debit: Decimal
    credit: Decimal


def _dec(value: Any) -> Decimal:
    return Decimal(value or 0).quantize(Decimal("0.01"))


class SmtRepository(SystemRepository[EcritureComptable]):
    """Reads for one organisation whose entries the service checked the caller may see."""

    model = EcritureComptable

    async def lignes_de_caisse(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[LigneCaisse]:
        """All lines (class 5 and counterparts) of the entries dated in [debut, fin] that touch class 5, in
        chronological order: date, then when it was booked (the two entries of a transfer through 585 in the order
        they were made, whatever their journals' codes), piece number, line order."""
        touchees = (select(LigneEcriture.ecriture_id)
                    .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                    .where(CompteComptable.classe == CLASSE_TRESORERIE))
        stmt = (select(EcritureComptable.id, EcritureComptable.date_ecriture, EcritureComptable.numero_piece,
                       JournalComptable.code, EcritureComptable.libelle, CompteComptable.numero_compte,
                       CompteComptable.libelle, CompteComptable.classe, LigneEcriture.debit, LigneEcriture.credit,
                       LigneEcriture.libelle)
                .select_from(LigneEcriture)
                .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
                .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                .join(JournalComptable, JournalComptable.id == EcritureComptable.journal_id)
                .where(EcritureComptable.organisation_id == organisation_id,
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin,
                       EcritureComptable.id.in_(touchees))
                .order_by(EcritureComptable.date_ecriture, EcritureComptable.created_at,
                          EcritureComptable.numero_piece, EcritureComptable.id, LigneEcriture.ordre))
        return [LigneCaisse(r[0], r[1], r[2], r[3], r[10] or r[4], r[5], r[6], r[7], _dec(r[8]), _dec(r[9]))
                for r in (await self.session.execute(stmt)).all()]
