"""Bulk reads and writes of a member import: lookups by chunks of keys, inserts in batches."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Membre, MembreOrganisation, Organisation

CHUNK = 1000


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for i in range(0, len(values), CHUNK):
        yield values[i:i + CHUNK]


class ImportRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def organisation(self, organisation_id: uuid.UUID) -> Organisation | None:
        return await self.session.get(Organisation, organisation_id)

    async def membres_par(self, column: Any, keys: set[str]) -> dict[str, list[Membre]]:
        found: dict[str, list[Membre]] = {}
        for chunk in _chunks(sorted(keys)):
            for membre in (await self.session.execute(select(Membre).where(column.in_(chunk)))).scalars():
                found.setdefault(str(getattr(membre, column.key)), []).append(membre)
        return found

    async def appartenances(self, organisation_id: uuid.UUID,
                            membre_ids: set[uuid.UUID]) -> dict[uuid.UUID, MembreOrganisation]:
        found = {}
        for chunk in _chunks(sorted(membre_ids)):
            stmt = select(MembreOrganisation).where(MembreOrganisation.organisation_id == organisation_id,
                                                    MembreOrganisation.membre_id.in_(chunk))
            found.update({m.membre_id: m for m in (await self.session.execute(stmt)).scalars()})
        return found

    async def inserer(self, model: type[Any], rows: list[dict[str, Any]]) -> None:
        for chunk in _chunks(rows):
            await self.session.execute(insert(model), chunk)
