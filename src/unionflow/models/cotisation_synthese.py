"""Summary of dues per bucket and its pending deltas (migration 0013), and the earliest due date each member still
owes per organisation (migration 0046); docs/architecture.md "Statistics of dues". Written only by the database:
triggers on ``cotisation`` append deltas (the compaction job folds them) and keep the per-member dates."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Index, Integer, Numeric, String, func
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base

# Sums over a whole organisation's dues: wider than one amount (Money), same two places.
Total = Numeric(20, 2, asdecimal=True)
# SQLite autoincrements only an INTEGER PRIMARY KEY (the rowid alias); the triggers insert without an id.
Identifiant = BigInteger().with_variant(Integer(), "sqlite")


class _Bucket:
    id: Mapped[int] = mapped_column(Identifiant, primary_key=True, autoincrement=True)
    organisation_id: Mapped[uuid.UUID]
    type_cotisation: Mapped[str] = mapped_column(String(30))
    # The stored status: EN_RETARD of open dues past their date is derived at read time, from date_echeance.
    statut: Mapped[str] = mapped_column(String(25))
    annee: Mapped[int]
    mois: Mapped[int | None]
    date_echeance: Mapped[date]
    nombre: Mapped[int] = mapped_column(BigInteger)
    montant_du: Mapped[Decimal] = mapped_column(Total)
    montant_paye: Mapped[Decimal] = mapped_column(Total)


class CotisationSynthese(_Bucket, Base):
    """One row per (organisation, type, stored status, year, month, due date): count and sums of its dues."""

    __tablename__ = "cotisation_synthese"


class CotisationSyntheseDelta(_Bucket, Base):
    """A signed change of one bucket, appended by the triggers of one statement on ``cotisation``."""

    __tablename__ = "cotisation_synthese_delta"

    __table_args__ = (Index("ix_cotisation_synthese_delta_organisation", "organisation_id"),)


Index("uq_cotisation_synthese_cle", CotisationSynthese.organisation_id, CotisationSynthese.type_cotisation,
      CotisationSynthese.statut, CotisationSynthese.annee, func.coalesce(CotisationSynthese.mois, 0),
      CotisationSynthese.date_echeance, unique=True)


class CotisationMembreSynthese(Base):
    """One row per (organisation, member) who has had open dues there: the earliest due date among the member's
    open dues (``STATUTS_DUS``), NULL once none is open. Members in arrears on a date are the rows whose date is
    before it (cotisations/synthese_sql.py explains how the triggers keep it exact)."""

    __tablename__ = "cotisation_membre_synthese"

    # No foreign keys, as the buckets: the database's triggers write it, and it must not block a delete.
    organisation_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    premiere_echeance_due: Mapped[date | None]

    __table_args__ = (Index("ix_cotisation_membre_synthese_echeance", "organisation_id", "premiere_echeance_due"),)
