"""A member's USSD PIN: what stands between a phone number and the member's figures on the USSD menu."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from unionflow.models.base import Base, IdMixin, TimestampMixin

# Three wrong PINs lock USSD for the member until the treasury resets it.
ECHECS_MAX = 3


class PinUssd(IdMixin, TimestampMixin, Base):
    __tablename__ = "pin_ussd"

    membre_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("membre.id", ondelete="CASCADE"), unique=True)
    # a keyed digest ``hmac1$<kid>$<hex>`` (ussd/empreinte.py; ``$argon2…`` before it, re-stored at the next
    # right PIN); None after a treasury reset without a new PIN: the member sets one again.
    pin_hash: Mapped[str | None] = mapped_column(String(255))
    echecs: Mapped[int] = mapped_column(default=0)
    verrouille: Mapped[bool] = mapped_column(default=False)
    verrouille_le: Mapped[datetime | None]
