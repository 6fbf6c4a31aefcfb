"""Idempotency keys already answered (core/idempotence.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import PERSON_KEY_LENGTH, Base, IdMixin, utcnow


class CleIdempotence(IdMixin, Base):
    """An ``Idempotency-Key`` already answered: the same caller sending it again gets the stored answer."""

    __tablename__ = "cle_idempotence"

    cle: Mapped[str] = mapped_column(String(200))
    # The person, (issuer, subject) as one text (core.auth.person_key), never the subject alone.
    appelant: Mapped[str] = mapped_column(String(PERSON_KEY_LENGTH))
    operation: Mapped[str] = mapped_column(String(100))
    empreinte: Mapped[str] = mapped_column(String(64))  # SHA-256 of the canonical request body
    statut_reponse: Mapped[int | None] = mapped_column(Integer)
    corps_reponse: Mapped[Any | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint("appelant", "operation", "cle", name="uq_cle_idempotence_appelant"),)
