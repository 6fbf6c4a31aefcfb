from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class UrgenceDemandeAide(StrEnum):
    FAIBLE = "FAIBLE"
    NORMALE = "NORMALE"
    ELEVEE = "ELEVEE"
    CRITIQUE = "CRITIQUE"


class StatutDemandeAide(StrEnum):
    SOUMISE = "SOUMISE"
    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"


class DemandeAide(IdMixin, TimestampMixin, Base):
    """A member's request for solidarity aid from an organisation (bereavement, illness, schooling...)."""

    __tablename__ = "demande_aide"

    numero_reference: Mapped[str] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    # DECES, MALADIE, MARIAGE, NAISSANCE, SCOLARITE, SINISTRE, AUTRE
    type_aide: Mapped[str] = mapped_column(String(50))
    titre: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    montant_demande: Mapped[Decimal]
    montant_accorde: Mapped[Decimal | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    urgence: Mapped[str] = mapped_column(String(10))
    statut: Mapped[str] = mapped_column(String(20), default=StatutDemandeAide.SOUMISE)
    date_soumission: Mapped[datetime]
    date_decision: Mapped[datetime | None]
    decide_par: Mapped[str | None] = mapped_column(String(254))
    motif: Mapped[str | None] = mapped_column(String(1000))

    __table_args__ = (
        Index("ix_demande_aide_organisation_statut", "organisation_id", "statut"),
        Index("ix_demande_aide_membre_date", "membre_id", "date_soumission"),
        Index("ix_demande_aide_date", "date_soumission", "id"),
    )
