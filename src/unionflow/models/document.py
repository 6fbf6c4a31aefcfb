"""Documents: metadata and stored content, attachments to any entity, download register."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, TimestampMixin, utcnow


class VisibiliteDocument(StrEnum):
    PRIVE = "PRIVE"
    ORGANISATION = "ORGANISATION"


class TypeEntite(StrEnum):
    ADHESION = "ADHESION"
    MEMBRE = "MEMBRE"
    DEMANDE_AIDE = "DEMANDE_AIDE"
    EVENEMENT = "EVENEMENT"
    PAIEMENT = "PAIEMENT"
    TICKET = "TICKET"
    COTISATION = "COTISATION"
    ORGANISATION = "ORGANISATION"


class Document(IdMixin, TimestampMixin, Base):
    __tablename__ = "document"

    nom_fichier: Mapped[str] = mapped_column(String(255))  # sanitised client name: metadata only, never a path
    description: Mapped[str | None] = mapped_column(Text)
    type_document: Mapped[str] = mapped_column(String(50), index=True)
    # PRIVE (owner, ADMIN, staff of attached entities' organisations) or ORGANISATION (also that organisation).
    visibilite: Mapped[str] = mapped_column(String(20), default="PRIVE")
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"), index=True)
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    proprietaire_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH), index=True)
    proprietaire_membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"))
    # Content (absent for a metadata-only document): generated storage key, detected type, size, digest.
    cle_stockage: Mapped[str | None] = mapped_column(String(100), unique=True)
    backend_stockage: Mapped[str | None] = mapped_column(String(20))
    type_mime: Mapped[str | None] = mapped_column(String(100))
    taille_octets: Mapped[int | None] = mapped_column(BigInteger)
    hash_sha256: Mapped[str | None] = mapped_column(String(64))
    nombre_telechargements: Mapped[int] = mapped_column(Integer, default=0)
    date_dernier_telechargement: Mapped[datetime | None]


class PieceJointe(IdMixin, Base):
    __tablename__ = "piece_jointe"

    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document.id"), index=True)
    type_entite: Mapped[str] = mapped_column(String(30))
    entite_id: Mapped[uuid.UUID]
    # Organisation of the target entity when it has one: its staff then sees the document.
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(index=True)
    libelle: Mapped[str | None] = mapped_column(String(200))
    ajoute_par: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("document_id", "type_entite", "entite_id", name="uq_piece_jointe_cible"),
    )


class TelechargementDocument(IdMixin, Base):
    __tablename__ = "telechargement_document"

    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document.id"), index=True)
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    utilisateur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    utilisateur: Mapped[str] = mapped_column(String(254))
    membre_id: Mapped[uuid.UUID | None]
    ip_address: Mapped[str | None] = mapped_column(String(64))
    date_telechargement: Mapped[datetime] = mapped_column(default=utcnow)
