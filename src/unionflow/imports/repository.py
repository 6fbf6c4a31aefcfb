"""Bulk reads and writes of a member import: lookups by chunks of keys, inserts in batches."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.exc import DBAPIError

from unionflow.core.repository import SystemRepository
from unionflow.models import Membre, MembreOrganisation, Organisation

CHUNK = 1000
logger = logging.getLogger(__name__)


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

    async def rafraichir_statistiques(self) -> None:
        """PostgreSQL plans by its statistics, and autovacuum refreshes them only after a while: a re-import right
        after a large first one looked its 100,000 phone numbers up by sequential scans (379 s instead of 23 s,
        bench/results/20261126T221310Z-import.md). ANALYZE in the import's own transaction counts the rows it
        inserted, and its statistics commit with them (PostgreSQL's advice after a bulk load). SQLite has no
        such drift (no statistics unless asked). A refusal (a role that does not own the tables) changes nothing
        but the plan: logged, never fatal."""
        if self.session.get_bind().dialect.name != "postgresql":
            return
        try:
            async with self.session.begin_nested():
                await self.session.execute(text("ANALYZE membre, membre_organisation"))
        except DBAPIError as exc:
            logger.warning("ANALYZE après import impossible: %s", exc.orig)
