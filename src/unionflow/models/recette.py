"""Kinds of income and, per organisation, the income account each kind is credited to."""

from __future__ import annotations

import uuid
from enum import StrEnum

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class NatureRecette(StrEnum):
    """What a franc received pays for: decides the income account (class 7) it is credited to."""

    COTISATION = "COTISATION"  # periodic dues: MENSUELLE, TRIMESTRIELLE, SEMESTRIELLE, ANNUELLE
    COTISATION_EXCEPTIONNELLE = "COTISATION_EXCEPTIONNELLE"  # dues of type EXCEPTIONNELLE
    SOLIDARITE = "SOLIDARITE"  # dues of type SOLIDARITE
    ADHESION = "ADHESION"  # droits d'adhésion
    DON = "DON"  # dons et libéralités
    EVENEMENT = "EVENEMENT"  # participation aux événements


class CompteProduit(IdMixin, TimestampMixin, Base):
    """An organisation's choice of income account for one kind; without a row the default account is used
    (comptabilite/produits/comptes.py). The number, not the account's id, is kept: the payment path reads accounts by
    number from the worker's cache."""

    __tablename__ = "compte_produit"

    organisation_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("organisation.id"), index=True)
    nature: Mapped[str] = mapped_column(String(30))
    numero_compte: Mapped[str] = mapped_column(String(20))

    __table_args__ = (UniqueConstraint("organisation_id", "nature", name="uq_compte_produit_organisation_nature"),)
