"""Inbound SMS (``sms_entrant``): its one door."""

from __future__ import annotations

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import SmsEntrant


class SmsEntrantRepository(SystemRepository[SmsEntrant]):
    """Unscoped: the gateway is the only caller; what an inbound SMS may show was decided by its keyword."""

    model = SmsEntrant

    async def deja_recu(self, passerelle: str, id_passerelle: str) -> SmsEntrant | None:
        stmt = select(SmsEntrant).where(SmsEntrant.passerelle == passerelle,
                                        SmsEntrant.id_passerelle == id_passerelle)
        return (await self.session.execute(stmt)).scalar_one_or_none()
