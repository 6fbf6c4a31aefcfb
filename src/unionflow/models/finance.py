"""Finance: annual budgets per organisation; the states and object types of its approval requests (the requests
themselves are four-eyes requests, models/approbation.py)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin


class StatutBudget(StrEnum):
    BROUILLON = "BROUILLON"
    SOUMIS = "SOUMIS"
    APPROUVE = "APPROUVE"
    CLOTURE = "CLOTURE"


class NatureLigneBudget(StrEnum):
    DEPENSE = "DEPENSE"
    RECETTE = "RECETTE"


class StatutApprobation(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"
    ANNULEE = "ANNULEE"


class TypeObjetApprobation(StrEnum):
    VERSEMENT = "VERSEMENT"  # a payout (versement) of the organisation
    AIDE = "AIDE"  # the disbursement of an approved aid request
    AUTRE = "AUTRE"  # any other expense, described by the motif
    # Extension: money undone above the threshold; opened by the undo request only
    ANNULATION = "ANNULATION"


class Budget(IdMixin, TimestampMixin, Base):
    """An organisation's budget for one year (BROUILLON → SOUMIS → APPROUVE → CLOTURE)."""

    __tablename__ = "budget"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    annee: Mapped[int] = mapped_column(Integer)
    libelle: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    date_debut: Mapped[date]
    date_fin: Mapped[date]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    statut: Mapped[str] = mapped_column(String(20), default="BROUILLON")
    cree_par: Mapped[str] = mapped_column(String(254))
    soumis_par: Mapped[str | None] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    soumis_par_sub: Mapped[str | None] = mapped_column(String(PERSON_KEY_LENGTH))
    date_soumission: Mapped[datetime | None]
    approuve_par: Mapped[str | None] = mapped_column(String(254))
    date_approbation: Mapped[datetime | None]
    commentaire: Mapped[str | None] = mapped_column(String(1000))
    date_cloture: Mapped[datetime | None]

    lignes: Mapped[list[LigneBudget]] = relationship(
        order_by="LigneBudget.ordre", lazy="selectin", cascade="all, delete-orphan")

    # One annual budget per organisation and year: the realised figures of a year are compared to one plan.
    __table_args__ = (UniqueConstraint("organisation_id", "annee"),)


class LigneBudget(IdMixin, Base):
    """A planned amount on one account, or on a category (every account whose number starts with a prefix)."""

    __tablename__ = "ligne_budget"

    budget_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("budget.id", ondelete="CASCADE"), index=True)
    ordre: Mapped[int] = mapped_column(Integer)
    libelle: Mapped[str] = mapped_column(String(200))
    compte_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("compte_comptable.id"))
    prefixe_compte: Mapped[str | None] = mapped_column(String(12))
    # DEPENSE (realised = debit - credit) or RECETTE (realised = credit - debit)
    nature: Mapped[str] = mapped_column(String(10))
    montant_prevu: Mapped[Decimal]
