"""Two-way SMS: inbound messages (keywords), numbers that answered STOP, and the one-time SMS codes that set a
member's USSD PIN (docs/ussd-sms.md)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin

# Wrong one-time codes before the code is void (the member asks for a new one).
ESSAIS_CODE_MAX = 3


class SmsEntrant(IdMixin, TimestampMixin, Base):
    """One SMS a phone sent to the service's number, as the gateway reported it; the gateway's id makes a
    retried callback answer once."""

    __tablename__ = "sms_entrant"

    passerelle: Mapped[str] = mapped_column(String(20))
    id_passerelle: Mapped[str] = mapped_column(String(100))
    expediteur: Mapped[str] = mapped_column(String(20), index=True)
    destinataire: Mapped[str | None] = mapped_column(String(30))
    texte: Mapped[str] = mapped_column(String(1000))
    mot_cle: Mapped[str] = mapped_column(String(10))
    # The member the answer spoke for (None: unknown phone, or a keyword that names no one).
    membre_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("membre.id", ondelete="SET NULL"))

    __table_args__ = (UniqueConstraint("passerelle", "id_passerelle", name="uq_sms_entrant_passerelle_id"),)


class OppositionSms(IdMixin, TimestampMixin, Base):
    """A number that sent STOP: no more reminders by SMS to it until it sends START."""

    __tablename__ = "opposition_sms"

    telephone: Mapped[str] = mapped_column(String(20), unique=True)


class CodePinSms(IdMixin, TimestampMixin, Base):
    """The one-time code sent by SMS to set a USSD PIN: hashed, expiring, void after three wrong tries. One per
    member (a new request replaces it)."""

    __tablename__ = "code_pin_sms"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"), unique=True)
    code_hash: Mapped[str] = mapped_column(String(255))
    expire_le: Mapped[datetime]
    essais: Mapped[int] = mapped_column(default=0)
    demande_par: Mapped[str] = mapped_column(String(254))
