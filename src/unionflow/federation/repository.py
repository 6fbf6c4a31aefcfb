"""The federation's consolidation: the ledger lines it eliminates (docs/federation.md).

Other figures come from their areas' repositories (members and dues: compte; balances: comptabilite's
EtatsRepository; quote-parts: versements). What remains here is the one query proper to consolidation: the
non-treasury lines of the entries booking a quote-part inside the perimeter, summed per account."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import CompteComptable, EcritureComptable, LigneEcriture

CLASSE_TRESORERIE = 5


@dataclass(frozen=True)
class Elimination:
    numero_compte: str
    debit: Decimal
    credit: Decimal


class ConsolidationRepository(SystemRepository[EcritureComptable]):
    """Read-only, unscoped: the service checked that the caller reads the federation (the perimeter's root)."""

    model = EcritureComptable

    async def eliminations(self, perimetre: Collection[uuid.UUID], pieces: Collection[str], debut: date,
                           fin: date) -> list[Elimination]:
        """Per account, debits and credits of the lines to eliminate: entries of the perimeter dated in the period
        whose piece reference is one of ``pieces`` (a quote-part and its reversal), treasury lines left (the money
        did move from one bank to another; both sides are booked in one transaction, none is in transit)."""
        if not perimetre or not pieces:
            return []
        stmt = (select(CompteComptable.numero_compte, func.sum(LigneEcriture.debit), func.sum(LigneEcriture.credit))
                .select_from(LigneEcriture)
                .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
                .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                .where(EcritureComptable.organisation_id.in_(list(perimetre)),
                       EcritureComptable.piece_reference.in_(list(pieces)),
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin,
                       CompteComptable.classe != CLASSE_TRESORERIE)
                .group_by(CompteComptable.numero_compte).order_by(CompteComptable.numero_compte))
        return [Elimination(str(r[0]), Decimal(r[1] or 0).quantize(Decimal("0.01")),
                            Decimal(r[2] or 0).quantize(Decimal("0.01")))
                for r in (await self.session.execute(stmt)).all()]
