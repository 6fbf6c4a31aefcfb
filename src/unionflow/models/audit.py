from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, utcnow


class Severite(StrEnum):
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class AuditLog(IdMixin, Base):
    __tablename__ = "audit_log"

    date_heure: Mapped[datetime] = mapped_column(default=utcnow)
    utilisateur: Mapped[str | None] = mapped_column(String(254))
    utilisateur_id: Mapped[str | None] = mapped_column(String(255))
    # Issuer of the token whose subject is ``utilisateur_id``: the two name the person (null before 0014).
    utilisateur_emetteur: Mapped[str | None] = mapped_column(String(255))
    role_actif: Mapped[str | None] = mapped_column(String(50))
    organisation_id: Mapped[uuid.UUID | None]
    type_action: Mapped[str] = mapped_column(String(50))
    module: Mapped[str] = mapped_column(String(50))
    entite_type: Mapped[str | None] = mapped_column(String(50))
    entite_id: Mapped[str | None] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    ip_address: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(500))
    severite: Mapped[str] = mapped_column(String(20), default="INFO")
    # X-Request-ID of the request that made the change: joins an audit entry to its log lines (GET /api/logs).
    request_id: Mapped[str | None] = mapped_column(String(128))

    __table_args__ = (
        Index("ix_audit_log_date_heure", "date_heure"),
        Index("ix_audit_log_module_date", "module", "date_heure"),
        Index("ix_audit_log_organisation_date", "organisation_id", "date_heure"),
        Index("ix_audit_log_entite", "entite_type", "entite_id"),
        # Audit search filters and statistics group on these (migration 0002_membres).
        Index("ix_audit_log_severite_date", "severite", "date_heure"),
        Index("ix_audit_log_type_action_date", "type_action", "date_heure"),
        Index("ix_audit_log_utilisateur_date", "utilisateur", "date_heure"),
        Index("ix_audit_log_ip_date", "ip_address", "date_heure"),
        Index("ix_audit_log_request_id", "request_id"),
        # The replica's read-your-writes check: the caller's recent rows (core/replica.py, migration 0044).
        Index("ix_audit_log_auteur_date", "utilisateur_id", "utilisateur_emetteur", "date_heure"),
    )
