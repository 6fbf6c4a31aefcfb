"""A member's preferences: one row per member, read for himself (the service passes the caller's own member id)
and by notifications when choosing channels, on the system's behalf."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from unionflow.core.repository import SystemRepository
from unionflow.models import PreferenceMembre


class PreferenceMembreRepository(SystemRepository[PreferenceMembre]):
    model = PreferenceMembre

    async def of_membre(self, membre_id: uuid.UUID, *, for_update: bool = False) -> PreferenceMembre | None:
        stmt = self.select().where(PreferenceMembre.membre_id == membre_id)
        if for_update:
            stmt = stmt.with_for_update()
        row: PreferenceMembre | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return row

    async def of_membres(self, membre_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, PreferenceMembre]:
        """Preferences of many members (notifications choosing channels), 500 ids per statement."""
        found: dict[uuid.UUID, PreferenceMembre] = {}
        ids = list(membre_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = await self.session.execute(self.select().where(PreferenceMembre.membre_id.in_(chunk)))
            found.update({p.membre_id: p for p in rows.scalars()})
        return found
