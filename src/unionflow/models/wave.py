"""Wave: organisations' accounts, checkout sessions of payments, webhook deliveries and the journal of operations."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class StatutCompteWave(StrEnum):
    ACTIF = "ACTIF"
    INACTIF = "INACTIF"


class CompteWave(IdMixin, TimestampMixin, Base):
    """An organisation's Wave business account. Secrets are stored, never returned."""

    __tablename__ = "compte_wave"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    libelle: Mapped[str] = mapped_column(String(200))
    numero_telephone: Mapped[str] = mapped_column(String(20))
    cle_api: Mapped[str | None] = mapped_column(String(500))
    secret_webhook: Mapped[str | None] = mapped_column(String(500))
    statut: Mapped[str] = mapped_column(String(20), default=StatutCompteWave.ACTIF)

    __table_args__ = (UniqueConstraint("organisation_id", "numero_telephone", name="uq_compte_wave_org_tel"),)


class WaveCheckout(IdMixin, TimestampMixin, Base):
    """The Wave checkout session opened for one pending payment."""

    __tablename__ = "wave_checkout"

    paiement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("paiement.id"), unique=True)
    checkout_id: Mapped[str] = mapped_column(String(100), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    # The organisation's own Wave account used for this session (None: the union's account from settings).
    compte_wave_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("compte_wave.id"))
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    launch_url: Mapped[str] = mapped_column(String(500))
    checkout_status: Mapped[str] = mapped_column(String(30))
    payment_status: Mapped[str] = mapped_column(String(30))
    transaction_id: Mapped[str | None] = mapped_column(String(100))
    when_expires: Mapped[datetime | None]


class WaveEvenement(IdMixin, Base):
    """A webhook delivery already processed (unique event id): redeliveries change nothing."""

    __tablename__ = "wave_evenement"

    event_id: Mapped[str] = mapped_column(String(100), unique=True)
    type: Mapped[str] = mapped_column(String(80))
    checkout_id: Mapped[str | None] = mapped_column(String(100))
    resultat: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class TransactionWave(IdMixin, Base):
    """Journal of what happened with Wave: checkouts, webhooks, payouts, refunds, expiries."""

    __tablename__ = "transaction_wave"

    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"))
    # CHECKOUT, PAIEMENT_RECU, PAIEMENT_ECHOUE, EXPIRATION, REMBOURSEMENT, VERSEMENT, ANOMALIE
    type_transaction: Mapped[str] = mapped_column(String(30))
    reference_wave: Mapped[str | None] = mapped_column(String(100))
    montant: Mapped[Decimal | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    statut: Mapped[str] = mapped_column(String(30))
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"), index=True)
    versement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("versement.id"), index=True)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_transaction_wave_org_date", "organisation_id", "created_at"),)
