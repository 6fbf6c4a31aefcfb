"""A user's favourites: events, organisations, documents, members they want at hand."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow


class TypeCible(StrEnum):
    EVENEMENT = "EVENEMENT"
    ORGANISATION = "ORGANISATION"
    DOCUMENT = "DOCUMENT"
    MEMBRE = "MEMBRE"


class Favori(IdMixin, Base):
    __tablename__ = "favori"

    # Per account (subject), not per member record: administrators without one keep favourites too.
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    utilisateur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    # EVENEMENT, ORGANISATION, DOCUMENT, MEMBRE; no foreign key (several target tables), visibility is
    # re-checked on every read.
    type_cible: Mapped[str] = mapped_column(String(20))
    cible_id: Mapped[uuid.UUID]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint("utilisateur_sub", "type_cible", "cible_id", name="uq_favori_cible"),
        Index("ix_favori_utilisateur_created", "utilisateur_sub", "created_at"),
    )
