from __future__ import annotations

from enum import StrEnum

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class TypeValeur(StrEnum):
    STRING = "STRING"
    NUMBER = "NUMBER"
    BOOLEAN = "BOOLEAN"
    JSON = "JSON"


class ConfigurationEntry(IdMixin, TimestampMixin, Base):
    """A system setting changed from its built-in default (defaults live in ``configuration.service``)."""

    __tablename__ = "configuration_entry"

    cle: Mapped[str] = mapped_column(String(100), unique=True)
    # Canonical text: STRING as is, NUMBER as a decimal literal, BOOLEAN true/false, JSON serialised.
    valeur: Mapped[str] = mapped_column(Text)
    type_valeur: Mapped[str] = mapped_column(String(10))
    description: Mapped[str | None] = mapped_column(String(500))
    modifie_par: Mapped[str | None] = mapped_column(String(254))
