"""Per organisation, the SYCEBNL heading of each account-number prefix (comptabilite/sycebnl/rubriques.py)."""

from __future__ import annotations

import uuid

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class CorrespondanceSycebnl(IdMixin, TimestampMixin, Base):
    """One prefix → heading row of an organisation's mapping. An organisation without rows uses the shipped
    default; an account its rows leave out falls back on the default too, so every account has a heading."""

    __tablename__ = "correspondance_sycebnl"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    prefixe: Mapped[str] = mapped_column(String(12))
    rubrique: Mapped[str] = mapped_column(String(40))

    __table_args__ = (UniqueConstraint("organisation_id", "prefixe", name="uq_correspondance_sycebnl_prefixe"),)
