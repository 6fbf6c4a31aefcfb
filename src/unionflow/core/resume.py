"""Running a delta-kept summary's maintenance (core/resume_sql.py): the compaction, as the scheduler's jobs and the
CLI run it, and the rebuild. Callers own the transaction, except ``compacter_en_tache``, which is the job's own."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core.db import sqlite_write_intent
from unionflow.core.resume_sql import Resume


async def executer(session: AsyncSession, statements: list[str]) -> list[int]:
    """Runs ``statements`` in the session's transaction; returns their row counts."""
    return [int(getattr(await session.execute(text(statement)), "rowcount", 0) or 0) for statement in statements]


async def compacter(session: AsyncSession, resume: Resume) -> dict[str, int]:
    """Fold the committed deltas into the summary (caller commits): how many buckets were folded into, and how
    many emptied buckets were dropped."""
    statements = resume.compact(session.get_bind().dialect.name)
    counts = await executer(session, statements)
    fold = next(i for i, statement in enumerate(statements) if f"INSERT INTO {resume.synthese}" in statement)
    return {"compartiments": counts[fold], "vides": counts[-1]}


async def compacter_en_tache(sessionmaker: async_sessionmaker[AsyncSession], resume: Resume) -> dict[str, int]:
    """The job: one short transaction (BEGIN IMMEDIATE on SQLite, so no other writer slips in between)."""
    token = sqlite_write_intent.set(True)
    try:
        async with sessionmaker() as session:
            counts = await compacter(session, resume)
            await session.commit()
        return counts
    finally:
        sqlite_write_intent.reset(token)
