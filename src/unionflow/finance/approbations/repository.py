from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.repository import ScopedRepository
from unionflow.models import DemandeAide, Organisation


class ApprobationRepository(ScopedRepository[Organisation]):
    """What a finance approval request is about, read in the caller's scope: the organisation or the aid request
    (the payout: finance/approbations/ports.py; the requests themselves are four-eyes requests:
    approbations/repository.py)."""

    model = Organisation

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        stmt = select(Organisation).where(Organisation.id == organisation_id,
                                          self.in_scope(Organisation.id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def demande_aide(self, demande_id: uuid.UUID) -> DemandeAide | None:
        return await self.session.get(DemandeAide, demande_id)
