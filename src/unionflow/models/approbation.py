"""Four eyes: every request that one person makes and a second decides, whatever its kind (a finance approval, the
reopening of a locked period, an undo of money), in one table, and its decisions in another. What each kind
means (who asks, who decides, how many deciders, what approval does) is its policy (unionflow/approbations)."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin, utcnow


class GenreDemande(StrEnum):
    """The kinds of request, each with its policy registered by the area that owns it."""

    FINANCE = "FINANCE"  # approval of a financial transaction (finance/approbations)
    REOUVERTURE = "REOUVERTURE"  # reopening a locked period (clotures/deverrouillage/service.py)
    ANNULATION = "ANNULATION"  # money undone: cancel or refund a payment, cancel a payout, reverse an entry
    ECRITURE = "ECRITURE"  # a manual entry touching money (saisies/)
    A_NOUVEAUX = "A_NOUVEAUX"  # opening balances typed in (tresoreries/ouverture_service.py)
    EFFACEMENT = "EFFACEMENT"  # a member's identity pseudonymised at his request (donnees_membre/)
    OPPOSITION = "OPPOSITION"  # a member objects to one processing of the register (donnees_membre/)


class StatutDemande(StrEnum):
    """One spelling for every kind; a kind's published answer may name a state otherwise (its policy says so)."""

    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"  # every required decider approved (and the approval was carried out)
    REJETEE = "REJETEE"  # one decider rejected: final
    RETIREE = "RETIREE"  # withdrawn by the requester (or by the system when its object went away)


class TypeDecision(StrEnum):
    """One decider's decision at one level of a request."""

    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"


class DemandeApprobation(IdMixin, TimestampMixin, Base):
    """A request waiting for (or having had) the decision of people other than its requester."""

    __tablename__ = "demande_approbation"

    # The kind (FINANCE, REOUVERTURE, ANNULATION): the policy that applies.
    genre: Mapped[str] = mapped_column(String(30))
    # What within the kind: finance's object type (VERSEMENT, AIDE, AUTRE, ANNULATION), the undo's type, …
    nature: Mapped[str | None] = mapped_column(String(30))
    # The number the request is known by (finance: APP-…; an approved refund: its receipt's number).
    numero: Mapped[str | None] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    objet_id: Mapped[uuid.UUID | None]
    montant: Mapped[Decimal | None]
    devise: Mapped[str | None] = mapped_column(String(3))
    motif: Mapped[str] = mapped_column(String(1000))
    statut: Mapped[str] = mapped_column(String(20), default=StatutDemande.EN_ATTENTE.value)
    niveaux_requis: Mapped[int] = mapped_column(Integer, default=1)
    niveau_atteint: Mapped[int] = mapped_column(Integer, default=0)
    demande_par: Mapped[str] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key): the only way people are compared.
    demande_par_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    role_demandeur: Mapped[str | None] = mapped_column(String(40))
    date_demande: Mapped[datetime] = mapped_column(default=utcnow)
    date_decision: Mapped[datetime | None]
    motif_retrait: Mapped[str | None] = mapped_column(String(1000))
    # What only the kind needs (a reopening's dates, …), JSON-ready values.
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    decisions: Mapped[list[DecisionDemande]] = relationship(
        order_by="DecisionDemande.niveau", lazy="selectin", cascade="all, delete-orphan")

    __table_args__ = (
        Index("ix_demande_approbation_organisation_statut", "organisation_id", "statut"),
        Index("ix_demande_approbation_objet", "genre", "objet_id"),
        Index("ix_demande_approbation_date_demande", "date_demande"),
    )


class DecisionDemande(IdMixin, Base):
    """One decider's decision on one level. Nobody decides twice on the same request."""

    __tablename__ = "decision_demande"

    demande_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("demande_approbation.id", ondelete="CASCADE"),
                                                  index=True)
    niveau: Mapped[int] = mapped_column(Integer)
    # APPROUVEE or REJETEE
    decision: Mapped[str] = mapped_column(String(20))
    decideur: Mapped[str] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    decideur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    role: Mapped[str | None] = mapped_column(String(50))
    commentaire: Mapped[str | None] = mapped_column(String(1000))
    date_decision: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("demande_id", "niveau"),
        UniqueConstraint("demande_id", "decideur_sub", name="uq_decision_demande_decideur"),
        Index("ix_decision_demande_decideur", "decideur"),
    )
