"""Bulk reads and writes of a member import: lookups by chunks of keys, inserts in batches."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert, select

from unionflow.core.repository import SystemRepository
from unionflow.models import Membre, MembreOrganisation, Organisation

CHUNK = 1000


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for i in range(0, len(values), CHUNK):
        yield values[i:i + CHUNK]


class ImportRepository(SystemRepository[Membre]):
    """Unscoped (``SystemRepository``): the import runs after ``ImportService`` checked the caller may import into
    the organisation (scoped read + permission), often in a background task without a caller."""

    model = Membre

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
