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


class Referentiel(StrEnum):
    """The accounting referential an organisation keeps its books under (docs/conformite.md S3, S6)."""

    SYCEBNL_NORMAL = "SYCEBNL_NORMAL"  # OHADA non-profit act, normal system
    SYCEBNL_SMT = "SYCEBNL_SMT"  # the same act's système minimal de trésorerie (small entities, cash basis)
    PCMS = "PCMS"  # plan comptable des mutuelles sociales (UEMOA Règlement 07/2009), approved mutuals only


class ReferentielComptable(IdMixin, TimestampMixin, Base):
    """One recorded choice of referential, effective from ``exercice`` on; never updated: the rows are the
    history, and the choice in force for a year is the latest row whose ``exercice`` is at most that year."""

    __tablename__ = "referentiel_comptable"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    referentiel: Mapped[str] = mapped_column(String(20))  # Referentiel
    exercice: Mapped[int]
    # PCMS only: the approval (agrément) or registration of the mutuelle sociale the choice rests on.
    reference_agrement: Mapped[str | None] = mapped_column(String(100))
    motif: Mapped[str] = mapped_column(String(500))
    choisi_par: Mapped[str] = mapped_column(String(254))
