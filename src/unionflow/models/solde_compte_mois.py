"""Ledger balances per (organisation, account, journal, month) and their pending deltas (migration 0047);
docs/architecture.md « Ledger balances per month ». Written only by the database: triggers on ``ligne_ecriture``
and ``ecriture_comptable`` append deltas, the compaction job folds them (comptabilite/soldes_sql.py)."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Index
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base
from unionflow.models.cotisation_synthese import Identifiant, Total


class _SoldeBucket:
    id: Mapped[int] = mapped_column(Identifiant, primary_key=True, autoincrement=True)
    # No foreign keys, as the dues buckets: the database's triggers write them, and they must not block a delete.
    organisation_id: Mapped[uuid.UUID]
    compte_id: Mapped[uuid.UUID]
    journal_id: Mapped[uuid.UUID]
    # The first day of the entries' month.
    mois: Mapped[date]
    # Entry lines in the bucket: 0 once they are all gone, and the bucket is dropped.
    nombre: Mapped[int] = mapped_column(BigInteger)
    debit: Mapped[Decimal] = mapped_column(Total)
    credit: Mapped[Decimal] = mapped_column(Total)


class SoldeCompteMois(_SoldeBucket, Base):
    """The count, debits and credits of the entry lines of one account in one journal in one month."""

    __tablename__ = "solde_compte_mois"

    __table_args__ = (Index("uq_solde_compte_mois_cle", "organisation_id", "compte_id", "journal_id", "mois",
                            unique=True),)


class SoldeCompteMoisDelta(_SoldeBucket, Base):
    """A signed change of one bucket, appended by the triggers of one statement on the entries."""

    __tablename__ = "solde_compte_mois_delta"

    __table_args__ = (Index("ix_solde_compte_mois_delta_organisation", "organisation_id"),)
