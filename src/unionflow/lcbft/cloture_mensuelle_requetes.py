"""What the monthly closing (issue 19) asks of LCB-FT: are alerts of the organisation still open? Called after the
closing service checked the caller's permission: the treasurer does not read alerts (RS-LCB), he learns only
how many block his closing."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import AlerteLcbFt


async def alertes_ouvertes(session: AsyncSession, organisation_id: uuid.UUID) -> int:
    stmt = select(func.count()).select_from(AlerteLcbFt).where(
        AlerteLcbFt.organisation_id == organisation_id, AlerteLcbFt.traitee.is_(False))
    return int((await session.execute(stmt)).scalar_one())
