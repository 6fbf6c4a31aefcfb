"""Propositions d'aide: what members offer to help others (money, goods, services), linked to aid requests."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class NatureProposition(StrEnum):
    FINANCIERE = "FINANCIERE"  # an amount of money (montant required)
    MATERIELLE = "MATERIELLE"  # goods: food, clothes, school supplies...
    SERVICE = "SERVICE"  # time or skills: transport, care, paperwork...


class StatutProposition(StrEnum):
    ACTIVE = "ACTIVE"
    RESERVEE = "RESERVEE"
    CLOTUREE = "CLOTUREE"


class PropositionAide(IdMixin, TimestampMixin, Base):
    __tablename__ = "proposition_aide"

    numero_reference: Mapped[str] = mapped_column(String(40), unique=True)
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    # Same codes as demande_aide.type_aide
    type_aide: Mapped[str] = mapped_column(String(50))
    # FINANCIERE (montant required), MATERIELLE, SERVICE
    nature: Mapped[str] = mapped_column(String(20))
    titre: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    montant: Mapped[Decimal | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    disponibilite: Mapped[str | None] = mapped_column(String(500))
    disponible_jusqu_au: Mapped[date | None]
    # ACTIVE, RESERVEE, CLOTUREE
    statut: Mapped[str] = mapped_column(String(20), default="ACTIVE")
    demande_aide_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("demande_aide.id"), index=True)
    date_reservation: Mapped[datetime | None]
    reserve_par: Mapped[str | None] = mapped_column(String(254))
    date_cloture: Mapped[datetime | None]
    motif_cloture: Mapped[str | None] = mapped_column(String(1000))

    __table_args__ = (Index("ix_proposition_aide_organisation_statut_type", "organisation_id", "statut", "type_aide"),)
