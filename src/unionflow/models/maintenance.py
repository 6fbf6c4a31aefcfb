from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base


class Maintenance(Base):
    """The one maintenance flag (row ``id = 1``), shared by every worker and host: while ``actif``, writes answer
    503 (see ``core/maintenance.py``). ``expire_le`` bounds it if the process that set it dies."""

    __tablename__ = "maintenance"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    actif: Mapped[bool] = mapped_column(Boolean, default=False)
    motif: Mapped[str | None] = mapped_column(String(200))
    debut: Mapped[datetime | None]
    expire_le: Mapped[datetime | None]
