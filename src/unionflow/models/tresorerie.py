"""The organisation's treasuries: cash boxes, bank accounts, mobile-money accounts, each
mapped to one class-5 account of its chart. The balance of a treasury is the balance of that account in the books."""

from __future__ import annotations

import uuid
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class TypeTresorerie(StrEnum):
    CAISSE = "CAISSE"
    BANQUE = "BANQUE"
    WAVE = "WAVE"
    ORANGE_MONEY = "ORANGE_MONEY"
    FREE_MONEY = "FREE_MONEY"


class Tresorerie(IdMixin, TimestampMixin, Base):
    """A cash box, bank account or mobile-money account of an organisation and the class-5 account it maps to."""

    __tablename__ = "tresorerie"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    type_tresorerie: Mapped[str] = mapped_column(String(20))  # TypeTresorerie
    nom: Mapped[str] = mapped_column(String(200))
    numero_compte: Mapped[str] = mapped_column(String(20))
    # Bank only: how far below zero the bank lets the account go. None: not controlled (the bank created by
    # default on first use, so organisations that declared nothing keep today's behaviour); 0: no overdraft.
    decouvert_autorise: Mapped[Decimal | None]
    actif: Mapped[bool] = mapped_column(Boolean, default=True)
    par_defaut: Mapped[bool] = mapped_column(Boolean, default=False)
    cree_par: Mapped[str] = mapped_column(String(254))

    __table_args__ = (UniqueConstraint("organisation_id", "numero_compte", name="uq_tresorerie_organisation_compte"),
                      UniqueConstraint("organisation_id", "nom", name="uq_tresorerie_organisation_nom"))
