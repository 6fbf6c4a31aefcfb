"""Statistics of dues read from the summary (docs/architecture.md, "Statistics of dues").

A caller who sees dues by organisation (global roles, organisation staff) gets the figures of the summary rows plus
the deltas not yet compacted, grouped exactly like ``CotisationRepository.aggregate_stmt`` (stored status, and
whether the due date has passed, so EN_RETARD stays derived by the one rule of
``organisation_service.statistics``). Staff who are also members add their own dues outside their organisations,
aggregated directly (a handful of rows). A caller who sees only their own dues keeps the direct aggregate.
Statements are built once per visibility shape and filter combination, with named parameters, and run on a
session or a read connection alike. The repository of the summary tables, which cotisations owns: statements,
compaction and rebuild.
"""

from __future__ import annotations

import functools
from datetime import date
from typing import Any

from sqlalchemy import (
    BigInteger,
    Date,
    Select,
    Subquery,
    and_,
    bindparam,
    case,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from unionflow.core import resume
from unionflow.core.visibility import SCOPE_MEMBRE, SCOPE_ORGANISATIONS, Shape, Visibility, condition
from unionflow.cotisations import synthese_sql
from unionflow.cotisations.repository import CotisationFilters, CotisationRepository
from unionflow.models import Cotisation, CotisationMembreSynthese, CotisationSynthese, CotisationSyntheseDelta
from unionflow.models.cotisation import STATUTS_DUS, StatutCotisation

Executor = AsyncSession | AsyncConnection
C = Cotisation.__table__


def par_synthese(shape: Shape) -> bool:
    """Visibility by organisation reads the summary; by member only (own dues, few rows) the dues themselves."""
    return shape.every or shape.organisations


def _branch(table: Any, figures: tuple[Any, ...], where: Any, annee: bool, mois: bool) -> Select[Any]:
    stmt = select(table.c.type_cotisation, table.c.statut, table.c.date_echeance, *figures).where(where)
    if annee:
        stmt = stmt.where(table.c.annee == bindparam("f_annee"))
    if mois:
        stmt = stmt.where(table.c.mois == bindparam("f_mois"))
    return stmt


def en_direct(shape: Shape) -> bool:
    """Read without the statistics cache: an organisation's buckets are a few hundred summary rows (about 2 ms at
    the large bench's 192 000 buckets, docs/decisions.md), cheaper than a cache lookup and its write on a miss, and
    live. Global callers read every bucket (0.1-0.3 s there) and keep the 30 s cache, as member callers do."""
    return shape.organisations and not shape.every


@functools.cache
def _buckets(shape: Shape, annee: bool, mois: bool) -> Subquery:
    by_organisation = Shape(every=shape.every, organisations=shape.organisations)
    parts = [_branch(table, (table.c.nombre, table.c.montant_du, table.c.montant_paye),
                     condition(by_organisation, table.c.organisation_id), annee, mois)
             for table in (CotisationSynthese.__table__, CotisationSyntheseDelta.__table__)]
    if shape.membre and not shape.every:
        # Own dues the organisation branches do not already count: exactly the rows the visibility rule adds.
        parts.append(_branch(C, (literal(1, BigInteger), C.c.montant_du, C.c.montant_paye),
                             (C.c.membre_id == bindparam(SCOPE_MEMBRE))
                             & C.c.organisation_id.not_in(bindparam(SCOPE_ORGANISATIONS, expanding=True)),
                             annee, mois))
    return union_all(*parts).subquery("buckets")


@functools.cache
def statistiques_stmt(shape: Shape, annee: bool, mois: bool) -> Select[Any]:
    """The rows of ``aggregate_stmt`` (statut, echu, nombre, du, paye) from the summary: one per group with dues."""
    b = _buckets(shape, annee, mois)
    echu = case((b.c.date_echeance < bindparam("today", type_=Date), 1), else_=0).label("echu")
    return (select(b.c.statut, echu, func.sum(b.c.nombre).label("nombre"),
                   func.coalesce(func.sum(b.c.montant_du), 0).label("du"),
                   func.coalesce(func.sum(b.c.montant_paye), 0).label("paye"))
            .group_by(b.c.statut, echu).having(func.sum(b.c.nombre) != 0))


@functools.cache
def par_type_stmt(shape: Shape) -> Select[Any]:
    """The rows of ``aggregate_by_type_stmt`` (type_cotisation, nombre, du, paye) from the summary."""
    b = _buckets(shape, False, False)
    live = b.c.statut != StatutCotisation.ANNULEE.value
    return (select(b.c.type_cotisation, func.sum(b.c.nombre).label("nombre"),
                   func.coalesce(func.sum(case((live, b.c.montant_du), else_=0)), 0).label("du"),
                   func.coalesce(func.sum(b.c.montant_paye), 0).label("paye"))
            .group_by(b.c.type_cotisation).having(func.sum(b.c.nombre) != 0).order_by(b.c.type_cotisation))



@functools.cache
def _chiffres_organisations_stmt() -> Select[Any]:
    b = union_all(*(select(t.c.organisation_id, t.c.statut, t.c.date_echeance, t.c.nombre, t.c.montant_du,
                           t.c.montant_paye).where(t.c.organisation_id.in_(bindparam("ids", expanding=True)))
                    for t in (CotisationSynthese.__table__, CotisationSyntheseDelta.__table__))).subquery("buckets")
    today = bindparam("today", type_=Date)
    overdue = and_(b.c.statut.in_(STATUTS_DUS), b.c.date_echeance < today)
    due_by_now = and_(b.c.statut != StatutCotisation.ANNULEE.value, b.c.date_echeance <= today,
                      func.extract("year", b.c.date_echeance) == bindparam("annee"))
    return (select(b.c.organisation_id,
                   func.coalesce(func.sum(case((due_by_now, b.c.montant_du), else_=0)), 0),
                   func.coalesce(func.sum(case((due_by_now, b.c.montant_paye), else_=0)), 0),
                   func.coalesce(func.sum(case((overdue, b.c.nombre), else_=0)), 0),
                   func.coalesce(func.sum(case((overdue, b.c.montant_du - b.c.montant_paye), else_=0)), 0))
            .group_by(b.c.organisation_id))


async def chiffres_organisations(executor: Executor, organisation_ids: list[Any], annee: int, today: date
                                 ) -> dict[Any, tuple[Any, Any, int, Any]]:
    """Per organisation: dues fallen due in ``annee`` up to ``today`` (owed, paid), and the open dues past due
    (count, remainder). From the summary and its pending deltas, so exact and a few hundred rows per organisation
    instead of every dues row: the federation's consolidation read 12 M dues at the national scale
    (docs/performance.md « Scale scenarios »). The bucket key holds the due date, so both cuts are exact."""
    rows = await executor.execute(_chiffres_organisations_stmt(),
                                  {"ids": organisation_ids, "today": today, "annee": annee})
    return {org: (du, paye, int(n), reste) for org, du, paye, n, reste in rows.all()}


async def membres_en_retard(executor: Executor, organisation_ids: list[Any], today: date) -> dict[Any, int]:
    """Per organisation, the distinct members with an open due past its date on ``today``: the members whose
    earliest open due date (``cotisation_membre_synthese``, kept by the triggers of migration 0046) is before it.
    One row per member instead of the overdue dues (5 M at the national scale, 2.6–3.0 s)."""
    m = CotisationMembreSynthese
    stmt = (select(m.organisation_id, func.count())
            .where(m.organisation_id.in_(organisation_ids), m.premiere_echeance_due < today)
            .group_by(m.organisation_id))
    return {org: int(n) for org, n in (await executor.execute(stmt)).all()}


class StatistiquesCotisations:
    """The aggregate rows statistics are computed from, for one caller: from the summary or the dues."""

    def __init__(self, executor: Executor, repo: CotisationRepository, seen: Visibility, today: date) -> None:
        self.executor = executor
        self.repo = repo  # its statement builders only (the direct path)
        self.seen = seen
        self.today = today

    async def par_statut(self, annee: int | None = None, mois: int | None = None) -> list[Any]:
        if not par_synthese(self.seen.shape):
            return await self._all(self.repo.aggregate_stmt(CotisationFilters(annee=annee, mois=mois)), {})
        values = {"today": self.today, "f_annee": annee, "f_mois": mois}
        return await self._all(statistiques_stmt(self.seen.shape, annee is not None, mois is not None), values)

    async def par_type(self) -> list[Any]:
        if not par_synthese(self.seen.shape):
            return await self._all(self.repo.aggregate_by_type_stmt(CotisationFilters()), {})
        return await self._all(par_type_stmt(self.seen.shape), {})

    async def _all(self, stmt: Select[Any], values: dict[str, Any]) -> list[Any]:
        params = {**self.seen.values, **values} if par_synthese(self.seen.shape) else None
        return list((await self.executor.execute(stmt, params)).all())


# --- maintenance: compaction (scheduler job) and rebuild (CLI, bench loader) ------------------------------------
async def compacter(session: AsyncSession) -> dict[str, int]:
    """Fold the committed deltas into the summary (caller commits); core/resume.py."""
    return await resume.compacter(session, synthese_sql.RESUME)


async def reconstruire(session: AsyncSession) -> int:
    """Recompute the summary and the per-member dates from every dues (caller commits); returns the summary's row
    count."""
    dialect = session.get_bind().dialect.name
    await resume.executer(session, synthese_sql.rebuild(dialect) + synthese_sql.rebuild_membres(dialect))
    return int((await session.execute(select(func.count()).select_from(CotisationSynthese))).scalar_one())


async def compacter_synthese(sessionmaker: async_sessionmaker[AsyncSession]) -> dict[str, int]:
    """The job: one short transaction of its own."""
    return await resume.compacter_en_tache(sessionmaker, synthese_sql.RESUME)
