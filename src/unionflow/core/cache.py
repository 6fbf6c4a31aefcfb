"""Short-lived shared cache for statistics: computed at most once per period and caller scope.

Statistics over millions of dues or audit entries cost a full aggregate; dashboards poll them. The result is
kept in the ``resultat_cache`` table (not process memory: every worker and host shares it) for
``UNIONFLOW_STATISTICS_CACHE_SECONDS`` (default 30 s; 0 turns the cache off) and returned with the time it was
computed (``calculeLe``, on every statistics response through ``ResultatCalcule``). The key includes the caller's
visibility, so nobody ever reads figures computed for a wider scope. Writes that change cached figures cheaply
identifiable by name (a payment, a new dues) call ``invalidate`` in their transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import Field
from sqlalchemy import Delete, bindparam, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from unionflow.config import get_settings
from unionflow.core.auth import AuthContext
from unionflow.core.db import autocommits
from unionflow.core.pagination import dialect_name
from unionflow.core.schemas import OutputModel
from unionflow.models import ResultatCache
from unionflow.models.base import utcnow


class ResultatCalcule(OutputModel):
    """Base of every statistics response: says when its figures were computed."""

    calcule_le: datetime = Field(
        default_factory=utcnow,
        description="Date et heure du calcul des chiffres (UTC). Un résultat servi depuis le cache de statistiques "
                    "peut dater de UNIONFLOW_STATISTICS_CACHE_SECONDS (30 s par défaut).")


M = TypeVar("M", bound=ResultatCalcule)


def scope_key(auth: AuthContext) -> str:
    """Everything visibility depends on (effective and realm roles, active organisation, memberships and their
    roles, member record), as a short stable string: two callers share a cached result only if they would
    see exactly the same rows, whatever rule an area applies."""
    if auth.is_global:
        return "global"
    parts = [",".join(sorted(auth.roles)), ",".join(sorted(auth.realm_roles)), f"a:{auth.active_organisation_id}",
             f"m:{auth.membre_id}",
             *sorted(f"{org}={','.join(sorted(roles))}" for org, roles in auth.memberships.items())]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


async def cached(session: AsyncSession | AsyncConnection, name: str, auth: AuthContext, model: type[M],
                 compute: Callable[[], Awaitable[M]]) -> M:
    """``session``: the request's session, or a read connection (core/db.py ``read_connection``)."""
    ttl = get_settings().statistics_cache_seconds
    if ttl <= 0:
        return await compute()
    key = f"{name}:{scope_key(auth)}"[:200]
    now = datetime.now(UTC)
    row = (await session.execute(select(ResultatCache.valeur, ResultatCache.calcule_le)
                                 .where(ResultatCache.cle == key))).one_or_none()
    if row is not None and now - row.calcule_le < timedelta(seconds=ttl):
        return model.model_validate({**row.valeur, "calcule_le": row.calcule_le})
    result = await compute()
    result.calcule_le = now
    values = {"cle": key, "valeur": result.model_dump(mode="json"), "calcule_le": now}
    insert = pg_insert if dialect_name(session) == "postgresql" else sqlite_insert
    stmt = insert(ResultatCache).values(**values)
    stmt = stmt.on_conflict_do_update(index_elements=[ResultatCache.cle],
                                      set_={"valeur": stmt.excluded.valeur, "calcule_le": stmt.excluded.calcule_le})
    try:
        # Best effort: a reader that cannot write now (SQLite writer elsewhere) still answers.
        connection = session if isinstance(session, AsyncConnection) else await session.connection()
        if autocommits(connection):
            await session.execute(stmt)  # one statement: atomic by itself, no savepoint outside a transaction
        else:
            async with session.begin_nested():
                await session.execute(stmt)
    except DBAPIError:
        pass
    return result


@lru_cache(maxsize=64)
def _purge(name: str, dialect: str) -> Delete:
    """The purge of ``name``'s results, built once per name and dialect (sent at every payment: a kept statement's
    SQLAlchemy cache key is computed once); the age limit is the bind parameter ``purge_<name>``."""
    match = (ResultatCache.cle.startswith(name, autoescape=True)
             & (ResultatCache.calcule_le <= bindparam(_param(name), type_=ResultatCache.calcule_le.type)))
    # Cached results are never loaded as objects of the session: nothing to synchronise.
    if dialect == "postgresql":
        return delete(ResultatCache).where(ResultatCache.cle.in_(
            select(ResultatCache.cle).where(match).with_for_update(skip_locked=True))
        ).execution_options(synchronize_session=False)
    return delete(ResultatCache).where(match).execution_options(synchronize_session=False)


def _param(name: str) -> str:
    return "purge_" + "".join(c if c.isalnum() else "_" for c in name)


def purges(session: AsyncSession, *names: str) -> list[tuple[Delete, dict[str, Any]]]:
    """The statements of ``invalidate`` with their parameters, for a caller that sends them with other writes
    (core/lot.py)."""
    settings = get_settings()
    if settings.statistics_cache_seconds <= 0:
        return []
    # Figures computed in the last seconds stay (they carry calculeLe): at 10 % payments, purging on every write
    # made each dashboard read recompute an aggregate over a million dues, and the soak stalled on it (bench).
    fresh = utcnow() - timedelta(seconds=settings.statistics_invalidation_min_age_seconds)
    dialect = session.get_bind().dialect.name
    return [(_purge(name, dialect), {_param(name): fresh}) for name in names]


async def invalidate(session: AsyncSession, *names: str) -> None:
    """Forget the cached results whose name starts with one of ``names`` (every caller scope) computed more than
    ``statistics_invalidation_min_age_seconds`` ago, in the writer's transaction: the first read after its commit
    recomputes. On PostgreSQL a row another transaction is already
    deleting or refreshing is skipped rather than waited for, so concurrent payments never queue on the cache;
    a refresh racing a write can at worst keep pre-write figures for one cache period, which calculeLe shows."""
    for stmt, params in purges(session, *names):
        await session.execute(stmt, params)
