from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class TypeCotisation(StrEnum):
    MENSUELLE = "MENSUELLE"
    TRIMESTRIELLE = "TRIMESTRIELLE"
    SEMESTRIELLE = "SEMESTRIELLE"
    ANNUELLE = "ANNUELLE"
    EXCEPTIONNELLE = "EXCEPTIONNELLE"
    SOLIDARITE = "SOLIDARITE"


class StatutCotisation(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"
    PARTIELLEMENT_PAYEE = "PARTIELLEMENT_PAYEE"
    PAYEE = "PAYEE"
    EN_RETARD = "EN_RETARD"
    ANNULEE = "ANNULEE"


# Dues still owed, whatever their stored status says of the due date (EN_RETARD is also derived at read time).
STATUTS_DUS = (StatutCotisation.EN_ATTENTE, StatutCotisation.PARTIELLEMENT_PAYEE, StatutCotisation.EN_RETARD)


class Cotisation(IdMixin, TimestampMixin, Base):
    """Dues owed by a member to an organisation for a period."""

    __tablename__ = "cotisation"

    numero_reference: Mapped[str] = mapped_column(String(40), unique=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    # MENSUELLE, TRIMESTRIELLE, ANNUELLE, EXCEPTIONNELLE, SOLIDARITE, ...
    type_cotisation: Mapped[str] = mapped_column(String(30))
    libelle: Mapped[str | None] = mapped_column(String(200))
    annee: Mapped[int]
    mois: Mapped[int | None]
    montant_du: Mapped[Decimal]
    montant_paye: Mapped[Decimal] = mapped_column(default=Decimal("0"))
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    date_echeance: Mapped[date]
    date_paiement: Mapped[datetime | None]
    # EN_ATTENTE, PARTIELLEMENT_PAYEE, PAYEE, EN_RETARD, ANNULEE (EN_RETARD is also derived at read time)
    statut: Mapped[str] = mapped_column(String(25), default="EN_ATTENTE")
    methode_paiement: Mapped[str | None] = mapped_column(String(30))
    reference_paiement: Mapped[str | None] = mapped_column(String(100))
    observations: Mapped[str | None] = mapped_column(Text)
    # Set only by batch generation: makes a second run of the same period create nothing.
    cle_generation: Mapped[str | None] = mapped_column(String(200), unique=True)
    # Extension: the payment code anyone may pay this dues with (core/code_paiement.py); set at creation,
    # backfilled by migration 0034 (nullable only so that the column could be added without rebuilding the table).
    code_paiement: Mapped[str | None] = mapped_column(String(11))

    __table_args__ = (
        Index("ix_cotisation_membre_echeance", "membre_id", "date_echeance"),
        Index("ix_cotisation_organisation_statut", "organisation_id", "statut"),
        Index("ix_cotisation_statut_echeance", "statut", "date_echeance"),
        Index("ix_cotisation_periode", "annee", "mois"),
        Index("ix_cotisation_created", "created_at", "id"),
        # Created by migration 0002_adhcot: scoped statistics, type filter, staff lists.
        Index("ix_cotisation_org_statut_echeance", "organisation_id", "statut", "date_echeance"),
        Index("ix_cotisation_type", "type_cotisation"),
        Index("ix_cotisation_organisation_created", "organisation_id", "created_at"),
        Index("ix_cotisation_code_paiement", "code_paiement", unique=True),
    )
