from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class MethodePaiement(StrEnum):
    WAVE = "WAVE"
    ESPECES = "ESPECES"
    VIREMENT = "VIREMENT"
    CHEQUE = "CHEQUE"
    ORANGE_MONEY = "ORANGE_MONEY"
    FREE_MONEY = "FREE_MONEY"
    CARTE = "CARTE"
    AUTRE = "AUTRE"


class StatutPaiement(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    VALIDE = "VALIDE"
    ECHOUE = "ECHOUE"
    EXPIRE = "EXPIRE"
    ANNULE = "ANNULE"
    REMBOURSE = "REMBOURSE"


class Paiement(IdMixin, TimestampMixin, Base):
    """One money movement from a member, allocated to one or several dues or an adhesion fee."""

    __tablename__ = "paiement"

    numero_recu: Mapped[str] = mapped_column(String(40), unique=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    montant: Mapped[Decimal]
    # Part of the amount that found nothing left to pay when applied (e.g. dues settled in cash meanwhile):
    # kept as the member's credit, never silently lost.
    montant_non_affecte: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    # WAVE, ESPECES, VIREMENT, CHEQUE, ORANGE_MONEY, FREE_MONEY, AUTRE
    methode: Mapped[str] = mapped_column(String(20))
    # EN_ATTENTE, VALIDE, ECHOUE, EXPIRE, ANNULE, REMBOURSE
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    reference_externe: Mapped[str | None] = mapped_column(String(100))
    date_paiement: Mapped[datetime | None]
    # Who entered the payment: the treasurer at the counter, or the member who declared it.
    enregistre_par: Mapped[str | None] = mapped_column(String(254))
    # Who received the money (issue 19): the treasurer who recorded it, or who confirmed the member's declaration;
    # "Wave" for money Wave confirmed. None on rows older than the column and on payments not received.
    recu_par: Mapped[str | None] = mapped_column(String(254))
    # A payment declared by the member (or a Wave checkout) has its own reference, outside the receipt series;
    # ``numero_recu`` holds it until the money is confirmed, then the official receipt number.
    reference_declaration: Mapped[str | None] = mapped_column(String(40), unique=True)
    commentaire: Mapped[str | None] = mapped_column(Text)
    # Printed in the receipt's QR code: proves the holder read the receipt, so the public verification route
    # cannot be used to enumerate receipt numbers.
    # Issue 20, item 3: the treasury the money entered (None: booked on the method's standard account before
    # any treasury of that type was declared).
    tresorerie_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("tresorerie.id"))
    cle_verification: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_urlsafe(12))

    @property
    def a_un_recu(self) -> bool:
        """Whether it holds an official receipt number (a declaration not confirmed only has its reference)."""
        return self.numero_recu is not None and self.numero_recu != self.reference_declaration

    __table_args__ = (
        Index("ix_paiement_organisation_date", "organisation_id", "date_paiement"),
        Index("ix_paiement_statut", "statut"),
    )


class PaiementAllocation(IdMixin, Base):
    """The part of a payment applied to one dues or one adhesion fee."""

    __tablename__ = "paiement_allocation"

    paiement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("paiement.id", ondelete="CASCADE"), index=True)
    cotisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("cotisation.id"), index=True)
    adhesion_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("adhesion.id"), index=True)
    montant: Mapped[Decimal]
