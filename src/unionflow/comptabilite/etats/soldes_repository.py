"""The ledger's lines up to a date, as buckets: the statements' balances read the summary per month
(``solde_compte_mois`` and its pending deltas, comptabilite/soldes_sql.py) for every whole month, and the entry
lines themselves only for the months a bound of the period cuts (docs/architecture.md « Ledger balances per
month »).

Each bucket has a ``jour``: a whole month's bucket its first day, a line its entry's date. A statement asks two
questions of each line: is it dated up to ``fin``, and is it before ``debut``. A whole month answers both for all
its lines at once when neither bound falls inside it, and then « before ``debut`` » is « ``jour`` < ``debut`` »
for its first day as for any of its days; the at most two months a bound falls inside (``debut`` or ``fin`` + 1
not a first of month) are read line by line. So every statement groups the buckets exactly as it grouped the
lines, and gets the same sums.
"""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

from sqlalchemy import Subquery, and_, literal, or_, select, union_all

from unionflow.models import EcritureComptable, LigneEcriture, SoldeCompteMois, SoldeCompteMoisDelta


def _mois_suivant(mois: date) -> date:
    return date(mois.year + (mois.month == 12), mois.month % 12 + 1, 1)


def mois_coupes(debut: date | None, fin: date) -> list[date]:
    """The first days of the months a bound of the period falls inside (read line by line)."""
    borne = fin + timedelta(days=1)
    coupes = {b.replace(day=1) for b in (debut, borne) if b is not None and b.day != 1}
    return sorted(m for m in coupes if m < borne)


def _dans(column: Any, organisation_ids: list[uuid.UUID]) -> Any:
    return column.in_(organisation_ids) if len(organisation_ids) > 1 else column == organisation_ids[0]


def compartiments(organisation_ids: list[uuid.UUID], debut: date | None, fin: date) -> Subquery:
    """The buckets of ``organisation_ids``'s lines dated up to ``fin``: (organisation_id, compte_id, journal_id,
    jour, nombre, debit, credit). ``debut`` only decides which month is cut."""
    coupes = mois_coupes(debut, fin)
    fin_mois_entiers = (fin + timedelta(days=1)).replace(day=1)
    branches: list[Any] = []
    for table in (SoldeCompteMois, SoldeCompteMoisDelta):
        stmt = (select(table.organisation_id, table.compte_id, table.journal_id, table.mois.label("jour"),
                       table.nombre, table.debit, table.credit)
                .where(_dans(table.organisation_id, organisation_ids), table.mois < fin_mois_entiers))
        if coupes:
            stmt = stmt.where(table.mois.not_in(coupes))
        branches.append(stmt)
    if coupes:
        jour = EcritureComptable.date_ecriture
        branches.append(
            select(EcritureComptable.organisation_id, LigneEcriture.compte_id, EcritureComptable.journal_id,
                   jour.label("jour"), literal(1).label("nombre"), LigneEcriture.debit, LigneEcriture.credit)
            .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
            .where(_dans(EcritureComptable.organisation_id, organisation_ids), jour <= fin,
                   or_(*(and_(jour >= m, jour < _mois_suivant(m)) for m in coupes))))
    return union_all(*branches).subquery("compartiments")
