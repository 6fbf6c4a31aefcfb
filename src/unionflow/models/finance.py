"""Finance: annual budgets per organisation, approval requests of financial transactions and their decisions."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin, utcnow


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
    # Extension (issue 19): money undone above the threshold; opened by the undo request only
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


class Approbation(IdMixin, TimestampMixin, Base):
    """A request to approve one financial transaction; one or two approvers depending on the amount."""

    __tablename__ = "approbation"

    numero: Mapped[str] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    # VERSEMENT, AIDE, AUTRE
    type_objet: Mapped[str] = mapped_column(String(20))
    objet_id: Mapped[uuid.UUID | None]
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    motif: Mapped[str] = mapped_column(String(1000))
    # EN_ATTENTE, APPROUVEE, REJETEE, ANNULEE
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    niveaux_requis: Mapped[int] = mapped_column(Integer)
    niveau_atteint: Mapped[int] = mapped_column(Integer, default=0)
    demande_par: Mapped[str] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    demande_par_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    date_demande: Mapped[datetime] = mapped_column(default=utcnow)
    date_decision: Mapped[datetime | None]
    motif_annulation: Mapped[str | None] = mapped_column(String(1000))

    decisions: Mapped[list[DecisionApprobation]] = relationship(
        order_by="DecisionApprobation.niveau", lazy="selectin", cascade="all, delete-orphan")

    __table_args__ = (
        Index("ix_approbation_organisation_statut", "organisation_id", "statut"),
        Index("ix_approbation_objet", "type_objet", "objet_id"),
        Index("ix_approbation_date_demande", "date_demande"),
    )


class TypeDecision(StrEnum):
    """One approver's decision at one level of an approval."""

    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"


class DecisionApprobation(IdMixin, Base):
    """One approver's decision on one level. Nobody decides twice on the same request."""

    __tablename__ = "decision_approbation"

    approbation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("approbation.id", ondelete="CASCADE"), index=True)
    niveau: Mapped[int] = mapped_column(Integer)
    # APPROUVEE or REJETEE
    decision: Mapped[str] = mapped_column(String(20))
    approbateur: Mapped[str] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    approbateur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    role: Mapped[str | None] = mapped_column(String(50))
    commentaire: Mapped[str | None] = mapped_column(String(1000))
    date_decision: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("approbation_id", "niveau"),
        UniqueConstraint("approbation_id", "approbateur_sub", name="uq_decision_approbation_approbateur"),
        Index("ix_decision_approbation_approbateur", "approbateur"),
    )
