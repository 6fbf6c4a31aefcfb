"""Double-entry bookkeeping per organisation (SYSCOHADA-like chart of accounts)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Index, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class TypeCompte(StrEnum):
    """SYSCOHADA révisé: the type follows from the account's class (first digit)."""

    CAPITAUX = "CAPITAUX"
    IMMOBILISATIONS = "IMMOBILISATIONS"
    STOCKS = "STOCKS"
    TIERS = "TIERS"
    TRESORERIE = "TRESORERIE"
    CHARGES = "CHARGES"
    PRODUITS = "PRODUITS"
    HORS_ACTIVITES_ORDINAIRES = "HORS_ACTIVITES_ORDINAIRES"
    ENGAGEMENTS_ANALYTIQUE = "ENGAGEMENTS_ANALYTIQUE"


class TypeJournalComptable(StrEnum):
    """Every stored journal type: the ones a user may create (``comptabilite.schemas.TypeJournal``) and CLOTURE,
    the year-end closing journal only the closing creates."""

    CAISSE = "CAISSE"
    BANQUE = "BANQUE"
    MOBILE_MONEY = "MOBILE_MONEY"
    VENTES = "VENTES"
    ACHATS = "ACHATS"
    OPERATIONS_DIVERSES = "OPERATIONS_DIVERSES"
    CLOTURE = "CLOTURE"


class CompteComptable(IdMixin, TimestampMixin, Base):
    __tablename__ = "compte_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    numero_compte: Mapped[str] = mapped_column(String(20))
    libelle: Mapped[str] = mapped_column(String(200))
    # First digit of the number (SYSCOHADA class 1-9) and the category it implies.
    classe: Mapped[int]
    type_compte: Mapped[str] = mapped_column(String(30))
    actif: Mapped[bool] = mapped_column(Boolean, default=True)
    # Marked by the organisation: a manual entry on it needs a second person, as on a treasury (class 5) or members'
    # credit (4191), which are controlled whatever this says (saisies/controle.py).
    sous_controle: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    __table_args__ = (UniqueConstraint("organisation_id", "numero_compte"),)


class JournalComptable(IdMixin, TimestampMixin, Base):
    __tablename__ = "journal_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    code: Mapped[str] = mapped_column(String(10))
    libelle: Mapped[str] = mapped_column(String(200))
    type_journal: Mapped[str] = mapped_column(String(30))
    actif: Mapped[bool] = mapped_column(Boolean, default=True)

    __table_args__ = (UniqueConstraint("organisation_id", "code"),)


class EcritureComptable(IdMixin, Base):
    """A balanced accounting entry. Never updated nor deleted: a mistake is corrected by a reversal entry."""

    __tablename__ = "ecriture_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    journal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("journal_comptable.id"))
    numero_piece: Mapped[str] = mapped_column(String(40))
    annee: Mapped[int]
    sequence: Mapped[int]
    date_ecriture: Mapped[date]
    libelle: Mapped[str] = mapped_column(String(300))
    piece_reference: Mapped[str | None] = mapped_column(String(100))
    montant_total: Mapped[Decimal]
    # Set when the entry books a payment: one entry per payment, whoever asks twice.
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"), unique=True)
    cree_par: Mapped[str | None] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    lignes: Mapped[list[LigneEcriture]] = relationship(
        order_by="LigneEcriture.ordre", lazy="selectin", cascade="all, delete-orphan")

    __table_args__ = (
        UniqueConstraint("journal_id", "annee", "sequence"),
        Index("ix_ecriture_comptable_organisation_date", "organisation_id", "date_ecriture"),
        Index("ix_ecriture_comptable_journal_date", "journal_id", "date_ecriture"),
    )


class LigneEcriture(IdMixin, Base):
    __tablename__ = "ligne_ecriture"

    ecriture_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ecriture_comptable.id", ondelete="CASCADE"),
                                                   index=True)
    compte_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compte_comptable.id"), index=True)
    ordre: Mapped[int]
    debit: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    credit: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    libelle: Mapped[str | None] = mapped_column(String(300))

    # One side only, never negative: the database refuses what the service would refuse.
    __table_args__ = (
        CheckConstraint("debit >= 0 AND credit >= 0 AND (debit = 0 OR credit = 0) AND debit + credit > 0",
                        name="un_seul_sens"),
    )
