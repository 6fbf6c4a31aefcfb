"""Leasing due rows of an outbox (notifications, webhook deliveries) to one worker.

Several workers may run the same delivery job: on PostgreSQL the due rows are picked with
``FOR UPDATE SKIP LOCKED`` and leased (their ``verrouillee_jusqua`` pushed ``bail`` ahead) in the caller's short
transaction; on SQLite the caller's ``BEGIN IMMEDIATE`` already makes the claim exclusive. A worker that crashes
after claiming loses only its lease: the rows become due again when it passes.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, or_, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute


def libre(lease: InstrumentedAttribute[Any], now: datetime) -> Any:
    """Not leased, or its lease has passed."""
    return or_(lease.is_(None), lease < now)


async def louer(session: AsyncSession, due_ids: Select[Any], lease: InstrumentedAttribute[Any], now: datetime,
                bail: timedelta, lock_of: Any = None) -> list[uuid.UUID]:
    """Lease the rows whose ids ``due_ids`` selects (already filtered, ordered and limited). The caller commits."""
    if session.get_bind().dialect.name == "postgresql":
        due_ids = due_ids.with_for_update(skip_locked=True, of=lock_of)
    ids = list((await session.execute(due_ids)).scalars())
    if ids:
        table = lease.class_
        await session.execute(update(table).where(table.id.in_(ids)).values({lease.key: now + bail})
                              .execution_options(synchronize_session=False))
    return ids
