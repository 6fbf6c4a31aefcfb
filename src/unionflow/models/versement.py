"""Money paid out by an organisation (payouts)."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class StatutVersement(StrEnum):
    EN_COURS = "EN_COURS"  # created, or sent to Wave and still processing
    REUSSI = "REUSSI"  # money delivered
    ECHOUE = "ECHOUE"  # Wave reported a failure; nothing left the account
    ANNULE = "ANNULE"  # withdrawn before anything was sent


class ModeVersement(StrEnum):
    WAVE = "WAVE"
    MANUEL = "MANUEL"


class ObjetVersement(StrEnum):
    COTISATIONS = "COTISATIONS"
    ADHESIONS = "ADHESIONS"
    AIDE = "AIDE"
    AUTRE = "AUTRE"
    # the share a member organisation pays its federation (organisation_destinataire_id), booked on
    # both sides (docs/federation.md).
    QUOTE_PART = "QUOTE_PART"


class Versement(IdMixin, TimestampMixin, Base):
    """Money paid out by an organisation (collected dues, adhesion fees, aid), by Wave payout or by hand."""

    __tablename__ = "versement"

    numero: Mapped[str] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    montant: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    mode: Mapped[str] = mapped_column(String(20))  # ModeVersement
    # ObjetVersement
    objet_type: Mapped[str] = mapped_column(String(20))
    objet_id: Mapped[uuid.UUID | None]
    motif: Mapped[str] = mapped_column(String(500))
    beneficiaire_nom: Mapped[str] = mapped_column(String(200))
    beneficiaire_telephone: Mapped[str | None] = mapped_column(String(20))
    statut: Mapped[str] = mapped_column(String(20), default=StatutVersement.EN_COURS)
    # Written when the row is created, before Wave is ever called: every retry sends the same key.
    cle_idempotence: Mapped[str] = mapped_column(String(100), unique=True)
    compte_wave_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("compte_wave.id"))
    payout_id: Mapped[str | None] = mapped_column(String(100), unique=True)
    reference_externe: Mapped[str | None] = mapped_column(String(100))
    date_execution: Mapped[datetime | None]
    motif_echec: Mapped[str | None] = mapped_column(Text)
    cree_par: Mapped[str] = mapped_column(String(254))
    confirme_par: Mapped[str | None] = mapped_column(String(254))
    # A quote-part (QUOTE_PART): the organisation receiving it (the payer's federation) and the receipt number
    # given in ITS series when the payout is delivered (docs/federation.md).
    organisation_destinataire_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"),
                                                                           index=True)
    numero_recu_destinataire: Mapped[str | None] = mapped_column(String(40))
    # the treasury the money leaves from (None: created before treasuries, booked as before)
    # and the counterpart account chosen at creation (class 2 or 6; None: the default expense of its object).
    tresorerie_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("tresorerie.id"))
    compte_charge: Mapped[str | None] = mapped_column(String(20))

    __table_args__ = (Index("ix_versement_organisation_statut", "organisation_id", "statut"),)
