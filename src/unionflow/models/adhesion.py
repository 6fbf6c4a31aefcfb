from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class StatutAdhesion(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"
    PAYEE = "PAYEE"
    ANNULEE = "ANNULEE"


class Adhesion(IdMixin, TimestampMixin, Base):
    """A member's application to join an organisation, and its entry fee."""

    __tablename__ = "adhesion"

    numero_reference: Mapped[str] = mapped_column(String(40), unique=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    # EN_ATTENTE, APPROUVEE, REJETEE, PAYEE, ANNULEE
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    date_demande: Mapped[date]
    frais_adhesion: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    montant_paye: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    methode_paiement: Mapped[str | None] = mapped_column(String(30))
    reference_paiement: Mapped[str | None] = mapped_column(String(100))
    date_paiement: Mapped[datetime | None]
    date_approbation: Mapped[datetime | None]
    approuve_par: Mapped[str | None] = mapped_column(String(200))
    date_rejet: Mapped[datetime | None]
    motif_rejet: Mapped[str | None] = mapped_column(String(1000))
    date_annulation: Mapped[datetime | None]
    observations: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_adhesion_statut_date", "statut", "date_demande"),
        Index("ix_adhesion_organisation_statut", "organisation_id", "statut"),
        # Created by migration 0002_adhcot: lists ordered by date, globally and per organisation.
        Index("ix_adhesion_created", "created_at", "id"),
        Index("ix_adhesion_organisation_created", "organisation_id", "created_at"),
    )
