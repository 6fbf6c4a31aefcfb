"""Money undone by two people: the request to cancel or refund a payment, cancel a delivered
payout or reverse an accounting entry, kept with its reason, who asked and who decided."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow


class TypeAnnulation(StrEnum):
    ANNULATION_PAIEMENT = "ANNULATION_PAIEMENT"  # recorded by mistake: the receipt is cancelled
    REMBOURSEMENT_PAIEMENT = "REMBOURSEMENT_PAIEMENT"  # money given back: a refund receipt is issued
    ANNULATION_VERSEMENT = "ANNULATION_VERSEMENT"  # a delivered (manual) payout that did not happen or came back
    CONTREPASSATION_ECRITURE = "CONTREPASSATION_ECRITURE"  # a manual accounting entry reversed
    REMBOURSEMENT_AVOIR = "REMBOURSEMENT_AVOIR"  # a member's credit (avoir) paid back


class StatutDemandeAnnulation(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"  # approved and carried out in the same transaction
    REJETEE = "REJETEE"
    RETIREE = "RETIREE"  # withdrawn by the requester


class DemandeAnnulation(IdMixin, Base):
    """Nothing moves while a request waits: the reversal, status change and Wave refund happen on approval."""

    __tablename__ = "demande_annulation"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    type_annulation: Mapped[str] = mapped_column(String(30))
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"), index=True)
    versement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("versement.id"), index=True)
    ecriture_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ecriture_comptable.id"), index=True)
    # The member whose payment it is (told of the outcome), None for payouts and entries.
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"))
    reference: Mapped[str] = mapped_column(String(40))  # receipt, payout or piece number undone
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    motif: Mapped[str] = mapped_column(String(500))
    statut: Mapped[str] = mapped_column(String(20), default=StatutDemandeAnnulation.EN_ATTENTE.value)
    demande_par: Mapped[str] = mapped_column(String(254))
    demande_par_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    date_demande: Mapped[datetime] = mapped_column(default=utcnow)
    # Above the threshold, the organisation's approval workflow (finance/approbations) decides first.
    approbation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("demande_approbation.id"))
    decide_par: Mapped[str | None] = mapped_column(String(254))
    decide_par_sub: Mapped[str | None] = mapped_column(String(PERSON_KEY_LENGTH))
    commentaire: Mapped[str | None] = mapped_column(String(1000))
    date_decision: Mapped[datetime | None]
    # Refunds: the refund receipt's number in the organisation's own gap-free series (RMB-<code>-<year>-…), given
    # on approval.
    numero_remboursement: Mapped[str | None] = mapped_column(String(40), unique=True)

    __table_args__ = (Index("ix_demande_annulation_statut", "organisation_id", "statut"),)
