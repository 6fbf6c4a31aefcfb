from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class MethodePaiement(StrEnum):
    """Méthode de paiement. Valeurs de la spécification: WAVE (paiement par session Wave Checkout, confirmé par
    Wave), ESPECES, VIREMENT, CHEQUE, ORANGE_MONEY, FREE_MONEY, CARTE, AUTRE. Extension: WAVE_TRANSFERT, un
    transfert Wave direct vers le numéro Wave de l'organisation, hors Checkout: jamais de session Wave,
    `referenceExterne` (identifiant de transaction Wave) obligatoire, encaissé dans la trésorerie Wave."""

    WAVE = "WAVE"
    ESPECES = "ESPECES"
    VIREMENT = "VIREMENT"
    CHEQUE = "CHEQUE"
    ORANGE_MONEY = "ORANGE_MONEY"
    FREE_MONEY = "FREE_MONEY"
    CARTE = "CARTE"
    AUTRE = "AUTRE"
    # Extension: a direct transfer to the organisation's Wave number, not a checkout.
    WAVE_TRANSFERT = "WAVE_TRANSFERT"


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
    # WAVE, ESPECES, VIREMENT, CHEQUE, ORANGE_MONEY, FREE_MONEY, CARTE, AUTRE, WAVE_TRANSFERT
    methode: Mapped[str] = mapped_column(String(20))
    # The method the member declared, kept when the treasurer corrected it at confirmation (None: not corrected).
    methode_declaree: Mapped[str | None] = mapped_column(String(20))
    # EN_ATTENTE, VALIDE, ECHOUE, EXPIRE, ANNULE, REMBOURSE
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    reference_externe: Mapped[str | None] = mapped_column(String(100))
    date_paiement: Mapped[datetime | None]
    # Who entered the payment: the treasurer at the counter, or the member who declared it.
    enregistre_par: Mapped[str | None] = mapped_column(String(254))
    # Who received the money: the treasurer who recorded it, or who confirmed the member's declaration;
    # "Wave" for money Wave confirmed. None on rows older than the column and on payments not received.
    recu_par: Mapped[str | None] = mapped_column(String(254))
    # A payment declared by the member (or a Wave checkout) has its own reference, outside the receipt series;
    # ``numero_recu`` holds it until the money is confirmed, then the official receipt number.
    reference_declaration: Mapped[str | None] = mapped_column(String(40), unique=True)
    commentaire: Mapped[str | None] = mapped_column(Text)
    # money received for no dues nor adhesion — DON or EVENEMENT (models/recette.NatureRecette); None for
    # dues and adhesion payments, whose allocations carry their kind. ``evenement_id``: the event an EVENEMENT
    # fee was paid for.
    nature: Mapped[str | None] = mapped_column(String(30))
    evenement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("evenement.id"), index=True)
    # Printed in the receipt's QR code: proves the holder read the receipt, so the public verification route
    # cannot be used to enumerate receipt numbers.
    # the treasury the money entered (None: booked on the method's standard account before
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


class TypeMouvementAvoir(StrEnum):
    """What moved a member's credit (avoir) with one organisation."""

    CREATION = "CREATION"  # money received that nothing was left to pay for (advance, overpayment)
    IMPUTATION = "IMPUTATION"  # credit applied to dues or an adhesion fee
    EXTOURNE = "EXTOURNE"  # the payment that created it was cancelled or refunded
    REMBOURSEMENT = "REMBOURSEMENT"  # paid back to the member (four eyes, annulations/)


class MouvementAvoir(IdMixin, Base):
    """One movement of a member's credit with an organisation, signed (+ created, − used or undone): the
    credit is their sum, per payment and per (member, organisation), and equals the payments' unallocated
    amounts (``Paiement.montant_non_affecte``) and the 4191 balance. Rows are never changed nor deleted."""

    __tablename__ = "mouvement_avoir"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    # The payment whose unallocated money this is: the receipt the movement refers to.
    paiement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("paiement.id"), index=True)
    type_mouvement: Mapped[str] = mapped_column(String(20))
    montant: Mapped[Decimal]
    cotisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("cotisation.id"))
    adhesion_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("adhesion.id"))
    # The accounting entry of an application (debit 4191 / credit income); none for the others, whose money is
    # in the payment's own entry and its reversal.
    ecriture_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ecriture_comptable.id"))
    libelle: Mapped[str] = mapped_column(String(300))
    cree_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_mouvement_avoir_membre_org", "membre_id", "organisation_id", "created_at"),)
