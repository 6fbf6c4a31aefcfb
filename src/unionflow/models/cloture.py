"""Closing the books: the lock date before which no entry may be dated, and closed fiscal years."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow


class VerrouComptable(Base):
    """Per organisation: entries dated on or before ``date_verrouillage`` are refused (manual) or re-dated to
    the first open day (automatic postings of money movements, which are never refused)."""

    __tablename__ = "verrou_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), primary_key=True)
    date_verrouillage: Mapped[date]
    modifie_par: Mapped[str | None] = mapped_column(String(254))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class StatutExercice(StrEnum):
    OUVERT = "OUVERT"
    CLOTURE = "CLOTURE"


class ExerciceComptable(IdMixin, Base):
    """A closed fiscal year (calendar year): its result was transferred to 131 (excédent) or 139 (déficit)."""

    __tablename__ = "exercice_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    annee: Mapped[int]
    resultat: Mapped[Decimal]
    ecriture_cloture_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ecriture_comptable.id"))
    cloture_par: Mapped[str | None] = mapped_column(String(254))
    date_cloture: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("organisation_id", "annee"),)


class StatutDeverrouillage(StrEnum):
    """A reopening request's state as its routes publish it (the REOUVERTURE kind of four-eyes requests)."""

    EN_ATTENTE = "EN_ATTENTE"
    APPROUVEE = "APPROUVEE"
    REJETEE = "REJETEE"
    ANNULEE = "ANNULEE"


class ClotureMensuelle(IdMixin, Base):
    """A month closed by an organisation's treasurer: the checklist the service verified,
    with the figures it compared, recorded as they were; the month is then locked (reopening: deverrouillage)."""

    __tablename__ = "cloture_mensuelle"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    annee: Mapped[int]
    mois: Mapped[int]
    date_fin: Mapped[date]
    caisse_comptee: Mapped[Decimal]
    caisse_comptable: Mapped[Decimal]
    ecart_caisse: Mapped[Decimal]
    compte_ecart: Mapped[str | None] = mapped_column(String(20))
    motif_ecart: Mapped[str | None] = mapped_column(String(500))
    ecriture_ecart_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("ecriture_comptable.id"))
    # The cash difference's four-eyes entry request (kind ECRITURE); closings before it booked the entry themselves.
    demande_ecart_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("demande_approbation.id"))
    banque_releve: Mapped[Decimal]
    banque_comptable: Mapped[Decimal]
    wave_releve: Mapped[Decimal]
    wave_comptable: Mapped[Decimal]
    delai_declarations_jours: Mapped[int]
    cloturee_par: Mapped[str] = mapped_column(String(254))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    cloturee_par_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    date_cloture: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("organisation_id", "annee", "mois"),)
