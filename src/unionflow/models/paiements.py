"""Tables of the Paiements / Wave / Versements area."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class CleIdempotence(IdMixin, Base):
    """An ``Idempotency-Key`` already answered: the same caller sending it again gets the stored answer."""

    __tablename__ = "cle_idempotence"

    cle: Mapped[str] = mapped_column(String(200))
    appelant: Mapped[str] = mapped_column(String(255))
    operation: Mapped[str] = mapped_column(String(100))
    empreinte: Mapped[str] = mapped_column(String(64))  # SHA-256 of the canonical request body
    statut_reponse: Mapped[int | None] = mapped_column(Integer)
    corps_reponse: Mapped[Any | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("appelant", "operation", "cle", name="uq_cle_idempotence_appelant"),)


class WaveEvenement(IdMixin, Base):
    """A webhook delivery already processed (unique event id): redeliveries change nothing."""

    __tablename__ = "wave_evenement"

    event_id: Mapped[str] = mapped_column(String(100), unique=True)
    type: Mapped[str] = mapped_column(String(80))
    checkout_id: Mapped[str | None] = mapped_column(String(100))
    resultat: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


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


class CompteWave(IdMixin, TimestampMixin, Base):
    """An organisation's Wave business account. Secrets are stored, never returned."""

    __tablename__ = "compte_wave"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    libelle: Mapped[str] = mapped_column(String(200))
    numero_telephone: Mapped[str] = mapped_column(String(20))
    cle_api: Mapped[str | None] = mapped_column(String(500))
    secret_webhook: Mapped[str | None] = mapped_column(String(500))
    statut: Mapped[str] = mapped_column(String(20), default="ACTIF")  # ACTIF, INACTIF

    __table_args__ = (UniqueConstraint("organisation_id", "numero_telephone", name="uq_compte_wave_org_tel"),)


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


class Versement(IdMixin, TimestampMixin, Base):
    """Money paid out by an organisation (collected dues, adhesion fees, aid), by Wave payout or by hand."""

    __tablename__ = "versement"

    numero: Mapped[str] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    mode: Mapped[str] = mapped_column(String(20))  # WAVE, MANUEL
    # COTISATIONS, ADHESIONS, AIDE, AUTRE
    objet_type: Mapped[str] = mapped_column(String(20))
    objet_id: Mapped[uuid.UUID | None]
    motif: Mapped[str] = mapped_column(String(500))
    beneficiaire_nom: Mapped[str] = mapped_column(String(200))
    beneficiaire_telephone: Mapped[str | None] = mapped_column(String(20))
    # EN_COURS, REUSSI, ECHOUE, ANNULE
    statut: Mapped[str] = mapped_column(String(20), default="EN_COURS")
    # Written when the row is created, before Wave is ever called: every retry sends the same key.
    cle_idempotence: Mapped[str] = mapped_column(String(100), unique=True)
    compte_wave_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("compte_wave.id"))
    payout_id: Mapped[str | None] = mapped_column(String(100), unique=True)
    reference_externe: Mapped[str | None] = mapped_column(String(100))
    date_execution: Mapped[datetime | None]
    motif_echec: Mapped[str | None] = mapped_column(Text)
    cree_par: Mapped[str] = mapped_column(String(254))
    confirme_par: Mapped[str | None] = mapped_column(String(254))

    __table_args__ = (Index("ix_versement_organisation_statut", "organisation_id", "statut"),)
