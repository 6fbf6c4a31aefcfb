"""Maintenance of the ledger summary per month (comptabilite/soldes_sql.py), which comptabilite owns: the
compaction (scheduler job ``compacter-soldes``, CLI) and the rebuild (CLI, bench loader). Reading it is
comptabilite/etats/soldes_repository.py."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.comptabilite import soldes_sql
from unionflow.core import resume
from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.models import SoldeCompteMois


async def reconstruire(session: AsyncSession) -> int:
    """Recompute the summary from every entry line (caller commits); returns its row count."""
    await resume.executer(session, soldes_sql.rebuild(session.get_bind().dialect.name))
    return int((await session.execute(select(func.count()).select_from(SoldeCompteMois))).scalar_one())


async def compacter_soldes(sessionmaker: async_sessionmaker[AsyncSession]) -> dict[str, int]:
    """The job's work: one short transaction of its own."""
    return await resume.compacter_en_tache(sessionmaker, soldes_sql.RESUME)


async def _compacter(ctx: Contexte) -> Compteurs:
    return await compacter_soldes(ctx.sessionmaker)


COMPACTER_SOLDES = Job("compacter-soldes", "Report des écarts des écritures dans les soldes mensuels",
                       lambda s: s.job_compacter_soldes_secondes, lambda s: 0, _compacter)
