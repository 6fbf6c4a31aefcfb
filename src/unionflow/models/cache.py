from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, String
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base


class ResultatCache(Base):
    """Results of expensive aggregates (statistics), shared by every worker and host."""

    __tablename__ = "resultat_cache"

    cle: Mapped[str] = mapped_column(String(200), primary_key=True)
    valeur: Mapped[dict[str, Any]] = mapped_column(JSON)
    calcule_le: Mapped[datetime]
