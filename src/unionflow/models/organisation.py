from __future__ import annotations

import uuid
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin
from unionflow.models.texte import colonne_recherche


class TypeOrganisation(StrEnum):
    UNION = "UNION"
    FEDERATION = "FEDERATION"
    ASSOCIATION = "ASSOCIATION"
    MUTUELLE = "MUTUELLE"
    COOPERATIVE = "COOPERATIVE"
    TONTINE = "TONTINE"


class StatutOrganisation(StrEnum):
    ACTIVE = "ACTIVE"
    SUSPENDUE = "SUSPENDUE"


class Organisation(IdMixin, TimestampMixin, Base):
    __tablename__ = "organisation"

    nom: Mapped[str] = mapped_column(String(200))
    nom_court: Mapped[str | None] = mapped_column(String(50))
    # Short code printed in the organisation's receipt numbers (REC-<code>-<year>-<n>), given once (at its first
    # receipt or by migration 0017) and never changed, so that its numbers stay what they were.
    code_serie: Mapped[str | None] = mapped_column(String(12), unique=True)
    # UNION > FEDERATION > ASSOCIATION (and peers such as MUTUELLE, COOPERATIVE, TONTINE).
    type_organisation: Mapped[str] = mapped_column(String(30), index=True)
    statut: Mapped[str] = mapped_column(String(20), default="ACTIVE", index=True)
    parent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"), index=True)
    description: Mapped[str | None] = mapped_column(Text)
    email: Mapped[str | None] = mapped_column(String(254))
    telephone: Mapped[str | None] = mapped_column(String(20))
    adresse: Mapped[str | None] = mapped_column(String(300))
    ville: Mapped[str | None] = mapped_column(String(100))
    region: Mapped[str | None] = mapped_column(String(100))
    pays: Mapped[str] = mapped_column(String(2), default="SN")
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    motif_suspension: Mapped[str | None] = mapped_column(String(500))
    # An image document of the organisation printed on its receipts and statements. No foreign key: a
    # document removed later leaves receipts printable without the logo (documents reference organisations).
    logo_document_id: Mapped[uuid.UUID | None]
    # Searched by the list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("nom", "nom_court", "ville")

    __table_args__ = (Index("ix_organisation_nom_lower", "nom"),)
