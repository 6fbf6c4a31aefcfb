"""Instant messaging between members of one organisation: conversations, participants, messages."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin, utcnow


class TypeConversation(StrEnum):
    DIRECTE = "DIRECTE"
    GROUPE = "GROUPE"


class TypeMessage(StrEnum):
    TEXTE = "TEXTE"
    VOCAL = "VOCAL"


class Conversation(IdMixin, TimestampMixin, Base):
    __tablename__ = "conversation"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    type_conversation: Mapped[str] = mapped_column(String(10))  # DIRECTE, GROUPE
    titre: Mapped[str | None] = mapped_column(String(200))
    # DIRECTE only: "<smaller membre id>:<larger membre id>", unique per organisation, so a pair has one thread.
    cle_directe: Mapped[str | None] = mapped_column(String(80))
    cree_par_membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    dernier_message_at: Mapped[datetime | None]

    __table_args__ = (UniqueConstraint("organisation_id", "cle_directe", name="uq_conversation_directe"),)


class ConversationParticipant(IdMixin, Base):
    __tablename__ = "conversation_participant"

    conversation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("conversation.id", ondelete="CASCADE"))
    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"), index=True)
    date_ajout: Mapped[datetime] = mapped_column(default=utcnow)
    # Messages after this instant (by others) are unread.
    dernier_lu_at: Mapped[datetime | None]
    # A participant who left keeps no access; the row stays for the history of who was there.
    date_depart: Mapped[datetime | None]

    __table_args__ = (UniqueConstraint("conversation_id", "membre_id", name="uq_conversation_participant"),)


class MessageConversation(IdMixin, Base):
    __tablename__ = "message_conversation"

    conversation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("conversation.id", ondelete="CASCADE"))
    auteur_membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id"))
    type_message: Mapped[str] = mapped_column(String(10))  # TEXTE, VOCAL
    contenu: Mapped[str | None] = mapped_column(Text)
    # VOCAL: the uploaded audio document (its participants may then download it).
    document_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("document.id"), index=True)
    duree_secondes: Mapped[int | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index("ix_message_conversation_conv_created", "conversation_id", "created_at"),)
