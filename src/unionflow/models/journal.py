from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin


class NiveauJournal(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class JournalSysteme(IdMixin, Base):
    """A stored system log record (GET /api/logs), written in batches by core.journal, purged after retention."""

    __tablename__ = "journal_systeme"

    horodatage: Mapped[datetime]
    niveau: Mapped[str] = mapped_column(String(10))
    logger: Mapped[str] = mapped_column(String(200))
    message: Mapped[str] = mapped_column(Text)
    request_id: Mapped[str | None] = mapped_column(String(128))
    utilisateur: Mapped[str | None] = mapped_column(String(255))
    organisation_id: Mapped[str | None] = mapped_column(String(36))
    methode: Mapped[str | None] = mapped_column(String(10))
    route: Mapped[str | None] = mapped_column(String(300))
    statut: Mapped[int | None] = mapped_column(Integer)
    duree_ms: Mapped[float | None] = mapped_column(Float)
    processus: Mapped[int | None] = mapped_column(Integer)
    contexte: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    exception: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_journal_systeme_horodatage", "horodatage"),
        Index("ix_journal_systeme_niveau_horodatage", "niveau", "horodatage"),
        Index("ix_journal_systeme_request_id", "request_id"),
        Index("ix_journal_systeme_logger_horodatage", "logger", "horodatage"),
    )
