"""General feedback on the application and the service (event feedback lives in evenement.py)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow
from unionflow.models.texte import colonne_recherche


class TypeFeedback(StrEnum):
    BUG = "BUG"
    AMELIORATION = "AMELIORATION"
    AUTRE = "AUTRE"


class Feedback(IdMixin, Base):
    __tablename__ = "feedback"

    type_feedback: Mapped[str] = mapped_column(String(20))  # BUG, AMELIORATION, AUTRE
    note: Mapped[int | None]
    message: Mapped[str] = mapped_column(Text)
    contexte: Mapped[str | None] = mapped_column(String(200))
    version_application: Mapped[str | None] = mapped_column(String(50))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    auteur_sub: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH), index=True)
    auteur_nom: Mapped[str] = mapped_column(String(254))
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id"))
    organisation_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("organisation.id"))
    traite: Mapped[bool] = mapped_column(default=False)
    traite_par: Mapped[str | None] = mapped_column(String(254))
    date_traitement: Mapped[datetime | None]
    commentaire_traitement: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Searched by the list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("message", "contexte")

    __table_args__ = (
        CheckConstraint("note IS NULL OR (note BETWEEN 1 AND 5)", name="note_range"),
        Index("ix_feedback_traite_created", "traite", "created_at"),
    )
