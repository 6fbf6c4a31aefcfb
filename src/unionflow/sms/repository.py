"""Inbound SMS (``sms_entrant``): its one door."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from unionflow.core.repository import SystemRepository
from unionflow.models import SmsEntrant


class SmsEntrantRepository(SystemRepository[SmsEntrant]):
    """Unscoped: the gateway is the only caller; what an inbound SMS may show was decided by its keyword."""

    model = SmsEntrant

    async def deja_recu(self, passerelle: str, id_passerelle: str) -> SmsEntrant | None:
        stmt = select(SmsEntrant).where(SmsEntrant.passerelle == passerelle,
                                        SmsEntrant.id_passerelle == id_passerelle)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def effacer_textes_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the sender and text of SMS received before ``limite``
        are replaced by ``texte`` (the row stays: its gateway id keeps a resend from being taken twice)."""
        stmt = (update(SmsEntrant).where(SmsEntrant.created_at < limite, SmsEntrant.texte != texte)
                .values(texte=texte, expediteur=texte))
        return await self.lignes_touchees(stmt)
