"""Members' ideas for their organisation, voted by their peers and answered by the staff."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow
from unionflow.models.texte import colonne_recherche


class StatutSuggestion(StrEnum):
    SOUMISE = "SOUMISE"
    EN_ETUDE = "EN_ETUDE"
    RETENUE = "RETENUE"
    REJETEE = "REJETEE"
    REALISEE = "REALISEE"


class CategorieSuggestion(StrEnum):
    SERVICES = "SERVICES"
    EVENEMENTS = "EVENEMENTS"
    COTISATIONS = "COTISATIONS"
    COMMUNICATION = "COMMUNICATION"
    FONCTIONNEMENT = "FONCTIONNEMENT"
    APPLICATION = "APPLICATION"
    AUTRE = "AUTRE"


class Suggestion(IdMixin, TimestampMixin, Base):
    __tablename__ = "suggestion"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    auteur_nom: Mapped[str] = mapped_column(String(254))
    titre: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    categorie: Mapped[str] = mapped_column(String(20))
    # SOUMISE, EN_ETUDE, RETENUE, REJETEE, REALISEE
    statut: Mapped[str] = mapped_column(String(10), default="SOUMISE")
    # Kept equal to the number of vote rows (recounted under the suggestion's row lock): sorts cheaply.
    nombre_votes: Mapped[int] = mapped_column(default=0)
    reponse: Mapped[str | None] = mapped_column(Text)
    repondu_par: Mapped[str | None] = mapped_column(String(254))
    date_reponse: Mapped[datetime | None]
    # Searched by the list's free text without accents nor case (models/texte.py).
    recherche: Mapped[str] = colonne_recherche("titre", "description")

    __table_args__ = (
        Index("ix_suggestion_organisation_votes", "organisation_id", "nombre_votes"),
        Index("ix_suggestion_organisation_created", "organisation_id", "created_at"),
    )


class SuggestionVote(IdMixin, Base):
    __tablename__ = "suggestion_vote"

    suggestion_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("suggestion.id", ondelete="CASCADE"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("suggestion_id", "membre_id", name="uq_suggestion_vote_membre"),)
