"""Scheduled jobs of the dues area. Run from cron or a systemd timer: ``unionflow jobs marquer-retards``
(docs/adhesions-cotisations.md). Responses already derive EN_RETARD at read time; the job stores it so that
exports, reports and other consumers reading the table directly see the same status."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core import audit
from unionflow.cotisations.repository import CotisationSystemRepository

BATCH = 5_000


async def marquer_retards_lot(session: AsyncSession, today: date, limit: int = BATCH) -> int:
    """Mark up to ``limit`` overdue dues EN_RETARD; returns how many were marked. Rows locked by a payment in
    progress are skipped on PostgreSQL and picked up by the next batch or run."""
    return await CotisationSystemRepository(session).marquer_retards(today, limit)


async def compter_retards(session: AsyncSession, today: date) -> int:
    """How many dues the job would mark now (the CLI's progress bar total)."""
    return await CotisationSystemRepository(session).compter_retards(today)


async def marquer_retards(sessionmaker: async_sessionmaker[AsyncSession], today: date | None = None,
                          batch_size: int = BATCH, avancement: Callable[[int], object] | None = None) -> int:
    """Mark every overdue dues, committing each batch so that millions of rows never sit in one transaction;
    ``avancement`` receives each batch's count."""
    day = today or datetime.now(UTC).date()
    total = 0
    while True:
        async with sessionmaker() as session:
            marked = await marquer_retards_lot(session, day, batch_size)
            if marked:
                total += marked
                await session.commit()
                if avancement is not None:
                    avancement(marked)
        if marked < batch_size:
            break
    async with sessionmaker() as session:
        await audit.record(session, None, action="MARQUER_RETARDS", module="COTISATIONS", entite_type="Cotisation",
                           description=f"{total} cotisation(s) passée(s) EN_RETARD (échéance avant le {day})",
                           after={"nombre": total, "date": day})
        await session.commit()
    return total
