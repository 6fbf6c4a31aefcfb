"""Événements: reference types, events, registrations (with waiting list), feedback, registrant notices."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow
from unionflow.models.texte import colonne_recherche


class StatutEvenement(StrEnum):
    PLANIFIE = "PLANIFIE"
    CONFIRME = "CONFIRME"
    EN_COURS = "EN_COURS"
    TERMINE = "TERMINE"
    ANNULE = "ANNULE"


class Visibilite(StrEnum):
    PUBLIC = "PUBLIC"
    MEMBRES = "MEMBRES"


class StatutInscription(StrEnum):
    CONFIRMEE = "CONFIRMEE"
    EN_ATTENTE = "EN_ATTENTE"
    ANNULEE = "ANNULEE"


class StatutModeration(StrEnum):
    PUBLIE = "PUBLIE"
    EN_ATTENTE = "EN_ATTENTE"
    REJETE = "REJETE"


class TypeReference(IdMixin, TimestampMixin, Base):
    """Configurable reference data ("Types de référence"): one row per allowed code of a domain."""

    __tablename__ = "type_reference"

    domaine: Mapped[str] = mapped_column(String(50))
    code: Mapped[str] = mapped_column(String(50))
    libelle: Mapped[str] = mapped_column(String(200))
    ordre: Mapped[int] = mapped_column(Integer, default=0)
    actif: Mapped[bool] = mapped_column(Boolean, default=True)
    # Added by 0003_finance (Types de référence): seeded entries are system ones and are never deleted.
    description: Mapped[str | None] = mapped_column(String(500))
    systeme: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))

    __table_args__ = (UniqueConstraint("domaine", "code", name="uq_type_reference_domaine_code"),)


class Evenement(IdMixin, TimestampMixin, Base):
    __tablename__ = "evenement"

    titre: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    type_evenement: Mapped[str] = mapped_column(String(50), index=True)
    date_debut: Mapped[datetime] = mapped_column(index=True)
    date_fin: Mapped[datetime]
    lieu: Mapped[str | None] = mapped_column(String(200))
    adresse: Mapped[str | None] = mapped_column(String(300))
    capacite_max: Mapped[int | None] = mapped_column(Integer)
    # Added by 0008_contrat: without it a full event refuses registrations (spec §8).
    liste_attente_active: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    prix: Mapped[Decimal | None]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    inscription_requise: Mapped[bool] = mapped_column(Boolean, default=False)
    date_limite_inscription: Mapped[datetime | None]
    visibilite: Mapped[str] = mapped_column(String(20), default="MEMBRES")
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    # Stored: PLANIFIE, CONFIRME, ANNULE. EN_COURS and TERMINE are derived from the dates (see docs).
    statut: Mapped[str] = mapped_column(String(20), default="PLANIFIE", index=True)
    motif_annulation: Mapped[str | None] = mapped_column(String(500))
    cree_par: Mapped[str | None] = mapped_column(String(254))
    # Searched by the list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("titre", "description", "lieu")

    __table_args__ = (
        CheckConstraint("date_fin > date_debut", name="dates"),
        CheckConstraint("capacite_max IS NULL OR capacite_max >= 1", name="capacite"),
    )


class InscriptionEvenement(IdMixin, TimestampMixin, Base):
    __tablename__ = "inscription_evenement"

    evenement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("evenement.id"), index=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    # CONFIRMEE, EN_ATTENTE (waiting list), ANNULEE (kept for history).
    statut: Mapped[str] = mapped_column(String(20))
    date_inscription: Mapped[datetime] = mapped_column(default=utcnow)
    date_confirmation: Mapped[datetime | None]
    date_annulation: Mapped[datetime | None]
    motif_annulation: Mapped[str | None] = mapped_column(String(500))

    __table_args__ = (
        # One active registration per member and event; cancelled ones stay as history.
        Index("uq_inscription_evenement_active", "evenement_id", "membre_id", unique=True,
              sqlite_where=text("statut <> 'ANNULEE'"), postgresql_where=text("statut <> 'ANNULEE'")),
        Index("ix_inscription_evenement_file", "evenement_id", "statut", "date_inscription"),
    )


class FeedbackEvenement(IdMixin, TimestampMixin, Base):
    __tablename__ = "feedback_evenement"

    evenement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("evenement.id"), index=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    note: Mapped[int] = mapped_column(Integer)
    commentaire: Mapped[str | None] = mapped_column(Text)
    # PUBLIE, EN_ATTENTE, REJETE.
    statut_moderation: Mapped[str] = mapped_column(String(20), index=True)
    motif_moderation: Mapped[str | None] = mapped_column(String(500))
    modere_par: Mapped[str | None] = mapped_column(String(254))
    date_moderation: Mapped[datetime | None]

    __table_args__ = (
        UniqueConstraint("evenement_id", "membre_id", name="uq_feedback_evenement_membre"),
        CheckConstraint("note BETWEEN 1 AND 5", name="note"),
    )


class NotificationEvenement(IdMixin, Base):
    """A notice owed to a registrant (cancellation, promotion from the waiting list). Delivered through a
    ``notification`` row pointing back here; ``date_envoi`` is set once that row is sent."""

    __tablename__ = "notification_evenement"

    evenement_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("evenement.id"), index=True)
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    type_notification: Mapped[str] = mapped_column(String(50))
    message: Mapped[str] = mapped_column(Text)
    date_creation: Mapped[datetime] = mapped_column(default=utcnow)
    date_envoi: Mapped[datetime | None]
