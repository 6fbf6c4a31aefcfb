"""Wave: organisations' accounts, checkout sessions of payments, webhook deliveries and the journal of operations."""

from __future__ import annotations

import uuid
from datetime import date, datetime
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
    # The client_reference given to Wave when it is not the payment's id: a dues' payment code (a session opened
    # from the public payment page), and the phone number the payer gave there, told when the money arrives.
    reference_client: Mapped[str | None] = mapped_column(String(100))
    telephone_payeur: Mapped[str | None] = mapped_column(String(30))


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


# ---- reconciliation of Wave statements -------------------------------------------------------------


class SourceReleveWave(StrEnum):
    CSV = "CSV"  # the file the Wave Business portal exports, uploaded by the treasury
    API = "API"  # fetched from Wave's GET /v1/transactions


class StatutLigneReleveWave(StrEnum):
    A_RAPPROCHER = "A_RAPPROCHER"  # imported, not yet matched
    RAPPROCHEE = "RAPPROCHEE"  # matched to one of our Wave payments or payouts, same amount
    MONTANT_DIFFERENT = "MONTANT_DIFFERENT"  # matched by reference, but Wave's gross amount is not ours
    INCONNUE = "INCONNUE"  # no payment or payout of ours has this transaction id or client reference


class ReleveWave(IdMixin, Base):
    """A Wave statement imported for one organisation (its own Wave account, or the union's shared account)."""

    __tablename__ = "wave_releve"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    compte_wave_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("compte_wave.id"))  # None: shared account
    source: Mapped[str] = mapped_column(String(10))
    nom_fichier: Mapped[str | None] = mapped_column(String(255))
    # SHA-256 of the file (CSV) or of the day asked (API): the same statement is imported once per organisation.
    empreinte: Mapped[str] = mapped_column(String(64))
    date_debut: Mapped[date | None]
    date_fin: Mapped[date | None]
    solde_wave: Mapped[Decimal | None]  # balance after the statement's last line, as Wave reports it
    nombre_lignes: Mapped[int] = mapped_column(default=0)
    lignes_deja_connues: Mapped[int] = mapped_column(default=0)
    lignes_autres_organisations: Mapped[int] = mapped_column(default=0)
    importe_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("organisation_id", "empreinte", name="uq_wave_releve_org_empreinte"),)


class LigneReleveWave(IdMixin, Base):
    """One transaction of a Wave statement. Unique per organisation and Wave transaction (a reversal is its own
    line): a line seen again in a later statement is not imported twice, so its fee is never booked twice."""

    __tablename__ = "wave_releve_ligne"

    releve_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("wave_releve.id"), index=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    transaction_id: Mapped[str] = mapped_column(String(100))
    est_annulation: Mapped[bool] = mapped_column(default=False)  # Wave's is_reversal
    horodatage: Mapped[datetime]
    type_transaction: Mapped[str | None] = mapped_column(String(40))
    montant: Mapped[Decimal]  # Wave's amount: effect on the wallet, net of the fee, signed
    frais: Mapped[Decimal]
    solde: Mapped[Decimal | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    contrepartie_nom: Mapped[str | None] = mapped_column(String(200))
    contrepartie_mobile: Mapped[str | None] = mapped_column(String(30))
    client_reference: Mapped[str | None] = mapped_column(String(255))
    # The transfer's message (the portal's « Message »/« Motif » column): may carry a dues' payment code.
    message: Mapped[str | None] = mapped_column(String(255))
    session_checkout_id: Mapped[str | None] = mapped_column(String(100))
    statut: Mapped[str] = mapped_column(String(20), default=StatutLigneReleveWave.A_RAPPROCHER)
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"), index=True)
    versement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("versement.id"), index=True)
    ecriture_frais_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ecriture_comptable.id"))

    __table_args__ = (UniqueConstraint("organisation_id", "transaction_id", "est_annulation",
                                       name="uq_wave_releve_ligne_transaction"),)


class RapprochementWave(IdMixin, Base):
    """One reconciliation of a statement: the figures and the gaps found, kept as the auditor's evidence."""

    __tablename__ = "wave_rapprochement"

    releve_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("wave_releve.id"), index=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    lignes_rapprochees: Mapped[int]
    lignes_inconnues: Mapped[int]
    lignes_montant_different: Mapped[int]
    operations_absentes: Mapped[int]
    frais_comptabilises: Mapped[Decimal]
    solde_comptable: Mapped[Decimal]
    solde_wave: Mapped[Decimal | None]
    ecart: Mapped[Decimal | None]
    compte_partage: Mapped[bool]
    # Our Wave payments and payouts of the period that the statement does not have (ids, references, amounts).
    absentes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    rapproche_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
