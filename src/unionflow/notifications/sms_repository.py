"""The numbers that answered STOP (``opposition_sms``) and the delivery reports of sent SMS: their one door."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, select, update

from unionflow.core.repository import SystemRepository
from unionflow.models import Notification, OppositionSms
from unionflow.models.notification import Canal


class OppositionSmsRepository(SystemRepository[OppositionSms]):
    """Unscoped: a STOP belongs to a phone number, whoever's it is; the outbox checks it for every member."""

    model = OppositionSms

    async def parmi(self, telephones: Iterable[str | None]) -> frozenset[str]:
        numeros = sorted({t for t in telephones if t})
        if not numeros:
            return frozenset()
        rows = await self.session.execute(select(OppositionSms.telephone).where(OppositionSms.telephone.in_(numeros)))
        return frozenset(rows.scalars())

    async def arreter(self, telephone: str) -> bool:
        """True when the number was not already opted out."""
        if await self.parmi([telephone]):
            return False
        self.session.add(OppositionSms(telephone=telephone))
        await self.session.flush()
        return True

    async def reprendre(self, telephone: str) -> bool:
        result = await self.session.execute(delete(OppositionSms).where(OppositionSms.telephone == telephone))
        return bool(result.rowcount)  # type: ignore[attr-defined]


class AccuseSmsRepository(SystemRepository[Notification]):
    """Delivery reports: the gateway names the message by the id it gave when it accepted it."""

    model = Notification

    async def accuser(self, reference: str, statut: str, detail: str | None, quand: datetime) -> int:
        """Records the report on the SMS with that gateway id; how many rows it named (0: unknown id)."""
        return await self.lignes_touchees(
            update(Notification).where(Notification.reference_passerelle == reference,
                                       Notification.canal == Canal.SMS.value)
            .values(accuse_statut=statut[:40], accuse_detail=(detail or None) and detail[:200], accuse_le=quand,
                    updated_at=quand)
            .execution_options(synchronize_session=False))
