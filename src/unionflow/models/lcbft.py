"""Anti-money-laundering (LCB-FT): per-organisation thresholds and the alerts raised on payments."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class Decision(StrEnum):
    SANS_SUITE = "SANS_SUITE"
    DECLARATION_SOUPCON = "DECLARATION_SOUPCON"


class TypeAlerte(StrEnum):
    SEUIL_OPERATION = "SEUIL_OPERATION"
    CUMUL_PERIODE = "CUMUL_PERIODE"
    ESPECES_ELEVEES = "ESPECES_ELEVEES"


class ParametresLcbFt(IdMixin, TimestampMixin, Base):
    __tablename__ = "parametres_lcb_ft"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), unique=True)
    seuil_operation: Mapped[Decimal]
    seuil_cumul: Mapped[Decimal]
    periode_cumul_jours: Mapped[int]
    seuil_especes: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    modifie_par: Mapped[str | None] = mapped_column(String(254))


class AlerteLcbFt(IdMixin, Base):
    __tablename__ = "alerte_lcb_ft"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"), index=True)
    paiement_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("paiement.id"))
    # SEUIL_OPERATION, CUMUL_PERIODE, ESPECES_ELEVEES
    type_alerte: Mapped[str] = mapped_column(String(30))
    montant: Mapped[Decimal]
    seuil: Mapped[Decimal]
    montant_cumule: Mapped[Decimal | None]
    periode_jours: Mapped[int | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    description: Mapped[str] = mapped_column(Text)
    date_alerte: Mapped[datetime] = mapped_column(default=utcnow)
    traitee: Mapped[bool] = mapped_column(Boolean, default=False)
    date_traitement: Mapped[datetime | None]
    traitee_par: Mapped[str | None] = mapped_column(String(254))
    commentaire: Mapped[str | None] = mapped_column(Text)
    # SANS_SUITE or DECLARATION_SOUPCON (sent to the national financial intelligence unit, CENTIF).
    decision: Mapped[str | None] = mapped_column(String(30))

    __table_args__ = (
        # evaluer_paiement may run twice on one payment (retries): one alert per payment and kind.
        UniqueConstraint("paiement_id", "type_alerte"),
        Index("ix_alerte_lcb_ft_organisation_date", "organisation_id", "date_alerte"),
        Index("ix_alerte_lcb_ft_traitee", "traitee", "organisation_id"),
    )
