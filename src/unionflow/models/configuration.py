from __future__ import annotations

import uuid
from enum import StrEnum

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
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


class ConfigurationOrganisation(IdMixin, TimestampMixin, Base):
    """An organisation's own value of a setting that may differ per organisation; absent: the
    installation's value (``ConfigurationEntry`` or the built-in default)."""

    __tablename__ = "configuration_organisation"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"))
    cle: Mapped[str] = mapped_column(String(100))
    valeur: Mapped[str] = mapped_column(Text)
    type_valeur: Mapped[str] = mapped_column(String(10))
    modifie_par: Mapped[str | None] = mapped_column(String(254))

    __table_args__ = (UniqueConstraint("organisation_id", "cle", name="uq_configuration_organisation_cle"),)
