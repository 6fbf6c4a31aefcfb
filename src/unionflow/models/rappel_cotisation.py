from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin


class StatutRappel(StrEnum):
    EN_ATTENTE = "EN_ATTENTE"  # waiting for its delivery channel
    ENVOYE = "ENVOYE"
    ECHEC = "ECHEC"


class RappelCotisation(IdMixin, TimestampMixin, Base):
    """One grouped reminder to a member listing their unpaid dues (history and per-day dedup). Delivered through a
    ``notification`` row pointing back here, whose outcome sets ``statut`` ENVOYE or ECHEC."""

    __tablename__ = "rappel_cotisation"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"))
    date_rappel: Mapped[date]
    cotisation_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    montant_total: Mapped[Decimal]
    devise: Mapped[str] = mapped_column(String(3), default="XOF")
    # EMAIL, SMS, IN_APP: chosen from the member's contact details.
    canal: Mapped[str] = mapped_column(String(20))
    destinataire: Mapped[str | None] = mapped_column(String(254))
    message: Mapped[str] = mapped_column(Text)
    # EN_ATTENTE until a delivery channel sends it (ENVOYE) or gives up (ECHEC).
    statut: Mapped[str] = mapped_column(String(20), default="EN_ATTENTE")
    date_envoi: Mapped[datetime | None]
    demande_par: Mapped[str | None] = mapped_column(String(254))

    __table_args__ = (
        Index("ix_rappel_cotisation_membre_date", "membre_id", "date_rappel"),
        Index("ix_rappel_cotisation_statut", "statut"),
    )
