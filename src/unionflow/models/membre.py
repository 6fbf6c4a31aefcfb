from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin
from unionflow.models.texte import colonne_recherche


class StatutMembre(StrEnum):
    ACTIF = "ACTIF"
    INACTIF = "INACTIF"
    SUSPENDU = "SUSPENDU"
    RADIE = "RADIE"


class StatutAppartenance(StrEnum):
    ACTIF = "ACTIF"
    SUSPENDU = "SUSPENDU"  # follows the member's suspension
    TERMINE = "TERMINE"


class Genre(StrEnum):
    MASCULIN = "MASCULIN"
    FEMININ = "FEMININ"


class Membre(IdMixin, TimestampMixin, Base):
    __tablename__ = "membre"

    numero_membre: Mapped[str] = mapped_column(String(30), unique=True)
    prenom: Mapped[str] = mapped_column(String(100))
    nom: Mapped[str] = mapped_column(String(100))
    email: Mapped[str | None] = mapped_column(String(254), unique=True)
    telephone: Mapped[str | None] = mapped_column(String(20), index=True)  # E.164
    date_naissance: Mapped[date | None]
    genre: Mapped[str | None] = mapped_column(String(10))
    profession: Mapped[str | None] = mapped_column(String(100))
    adresse: Mapped[str | None] = mapped_column(String(300))
    ville: Mapped[str | None] = mapped_column(String(100))
    pays: Mapped[str | None] = mapped_column(String(2))
    statut: Mapped[str] = mapped_column(String(20), default="ACTIF", index=True)
    motif_statut: Mapped[str | None] = mapped_column(String(500))
    date_statut: Mapped[datetime | None]
    # When the person's identity was pseudonymised (erasure, Loi 2008-12; donnees_membre/): None while it is kept.
    date_effacement: Mapped[datetime | None]
    # The identity-provider account linked to this member, when known: a person is (issuer `iss`, subject
    # `sub`), never the subject alone (two issuers may give the same subject to two people). Both or neither.
    user_iss: Mapped[str | None] = mapped_column(String(255))
    user_sub: Mapped[str | None] = mapped_column(String(255))
    # Searched by the register's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("prenom", "nom", "email", "telephone")

    __table_args__ = (Index("ix_membre_nom_prenom", "nom", "prenom"),
                      UniqueConstraint("user_iss", "user_sub"))


class MembreOrganisation(IdMixin, TimestampMixin, Base):
    """A membership: the member belongs to the organisation and holds organisation roles there."""

    __tablename__ = "membre_organisation"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    roles: Mapped[list[str]] = mapped_column(JSON, default=lambda: ["MEMBRE"])
    statut: Mapped[str] = mapped_column(String(20), default="ACTIF")
    date_debut: Mapped[date]
    date_fin: Mapped[date | None]

    __table_args__ = (UniqueConstraint("membre_id", "organisation_id"),)
