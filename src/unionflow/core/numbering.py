"""Human-readable numbers (numeroMembre, references, receipts) that stay unique across workers."""

from __future__ import annotations

import secrets

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Compteur

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on phones


async def next_value(session: AsyncSession, name: str) -> int:
    """Gap-free counter: the row lock taken by UPDATE serialises concurrent requests until commit."""
    result = await session.execute(
        update(Compteur).where(Compteur.nom == name).values(valeur=Compteur.valeur + 1).returning(Compteur.valeur)
    )
    value = result.scalar_one_or_none()
    if value is not None:
        return int(value)
    try:
        async with session.begin_nested():
            await session.execute(insert(Compteur).values(nom=name, valeur=1))
        return 1
    except IntegrityError:
        return await next_value(session, name)


async def next_values(session: AsyncSession, *names: str) -> dict[str, int]:
    """Next value of several gap-free counters in one statement (a payment: its receipt and its accounting
    entry). On PostgreSQL the rows are locked in name order first (``ORDER BY … FOR UPDATE``), so two such
    calls cannot deadlock whatever plan the UPDATE gets; a counter that does not exist yet is created as
    ``next_value`` does."""
    stmt = update(Compteur).values(valeur=Compteur.valeur + 1).returning(Compteur.nom, Compteur.valeur)
    if session.get_bind().dialect.name == "postgresql":
        locked = (select(Compteur.nom).where(Compteur.nom.in_(names)).order_by(Compteur.nom)
                  .with_for_update().cte("verrou"))
        stmt = stmt.where(Compteur.nom == locked.c.nom)
    else:
        stmt = stmt.where(Compteur.nom.in_(names))
    values = {str(nom): int(valeur) for nom, valeur in (await session.execute(stmt)).all()}
    for name in names:
        if name not in values:
            values[name] = await next_value(session, name)
    return values


async def reserve_values(session: AsyncSession, name: str, count: int) -> int:
    """Reserve ``count`` consecutive values of a gap-free counter in one statement; returns the first.
    For bulk creation (imports): one row lock instead of one per record."""
    result = await session.execute(
        update(Compteur).where(Compteur.nom == name).values(valeur=Compteur.valeur + count)
        .returning(Compteur.valeur))
    last = result.scalar_one_or_none()
    if last is None:
        try:
            async with session.begin_nested():
                await session.execute(insert(Compteur).values(nom=name, valeur=count))
            return 1
        except IntegrityError:
            return await reserve_values(session, name, count)
    return int(last) - count + 1


async def sequential_number(session: AsyncSession, prefix: str, year: int, width: int = 6) -> str:
    value = await next_value(session, f"{prefix}-{year}")
    return f"{prefix}-{year}-{value:0{width}d}"


def random_reference(prefix: str, year: int, length: int = 8) -> str:
    """Collision-free in practice (32^8) and contention-free for high-volume records."""
    return f"{prefix}-{year}-" + "".join(secrets.choice(_ALPHABET) for _ in range(length))


async def all_values(session: AsyncSession) -> dict[str, int]:
    return {str(n): int(v) for n, v in (await session.execute(select(Compteur.nom, Compteur.valeur))).all()}


async def raise_to(session: AsyncSession, floors: dict[str, int]) -> None:
    """Bring every counter up to at least ``floors`` (the values before a restore): a number handed out once,
    on a receipt or a membership card, is never handed out again, even when the rows that used it are gone."""
    current = await all_values(session)
    for name, floor in floors.items():
        if name not in current:
            await session.execute(insert(Compteur).values(nom=name, valeur=floor))
        elif current[name] < floor:
            await session.execute(update(Compteur).where(Compteur.nom == name).values(valeur=floor))
