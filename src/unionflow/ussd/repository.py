"""The USSD PIN table (``pin_ussd``): its one door."""

from __future__ import annotations

import uuid

from sqlalchemy import bindparam, select

from unionflow.core.repository import SystemRepository
from unionflow.models.sms import CodePinSms
from unionflow.models.ussd import PinUssd

# Built once: read at every USSD step after the caller is known (membres/repository.py's phone lookup says why).
_PIN = select(PinUssd).where(PinUssd.membre_id == bindparam("membre_id"))
_PIN_VERROUILLE = _PIN.with_for_update().execution_options(populate_existing=True)


class PinUssdRepository(SystemRepository[PinUssd]):
    """Unscoped: the USSD callback has no caller but the gateway; the service has matched the phone to the member
    (or the API route has checked the member's visibility) before it reads a PIN."""

    model = PinUssd

    async def du_membre(self, membre_id: uuid.UUID, *, for_update: bool = False) -> PinUssd | None:
        # Re-read under the lock: the row may already sit in the session, read before the lock was taken.
        stmt = _PIN_VERROUILLE if for_update else _PIN
        return (await self.session.execute(stmt, {"membre_id": membre_id})).scalar_one_or_none()


class CodePinSmsRepository(SystemRepository[CodePinSms]):
    """Unscoped, like the PIN: the USSD caller is matched by the phone, the treasury route checked its permission
    on the member first."""

    model = CodePinSms

    async def du_membre(self, membre_id: uuid.UUID, *, for_update: bool = False) -> CodePinSms | None:
        stmt = self.select().where(CodePinSms.membre_id == membre_id)
        if for_update:
            stmt = stmt.with_for_update().execution_options(populate_existing=True)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def supprimer(self, code: CodePinSms) -> None:
        await self.session.delete(code)
        await self.session.flush()
