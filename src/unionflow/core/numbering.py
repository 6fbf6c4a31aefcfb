"""Human-readable numbers (numeroMembre, references) that stay unique across workers: gap-free counters, random
references and the organisation's short code. The receipts' own series are paiements/recus/numerotation.py."""

from __future__ import annotations

import re
import secrets
import unicodedata

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Compteur

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on phones
SIGLE_MAX = 8
_MOTS_VIDES = frozenset({"DE", "DU", "DES", "LA", "LE", "LES", "L", "D", "ET", "POUR", "EN", "AU", "AUX", "A"})


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


# Built once with an expanding parameter (every payment runs one): the statement's cache key is then computed once.
_SUIVANTS = (update(Compteur).values(valeur=Compteur.valeur + 1).returning(Compteur.nom, Compteur.valeur)
             .where(Compteur.nom.in_(bindparam("noms", expanding=True))))
_VERROU = (select(Compteur.nom).where(Compteur.nom.in_(bindparam("noms", expanding=True))).order_by(Compteur.nom)
           .with_for_update().cte("verrou"))
_SUIVANTS_PG = (update(Compteur).values(valeur=Compteur.valeur + 1).returning(Compteur.nom, Compteur.valeur)
                .where(Compteur.nom == _VERROU.c.nom))


async def next_values(session: AsyncSession, *names: str) -> dict[str, int]:
    """Next value of several gap-free counters in one statement (a payment: its receipt and its accounting
    entry). On PostgreSQL the rows are locked in name order first (``ORDER BY … FOR UPDATE``), so two such
    calls cannot deadlock whatever plan the UPDATE gets; a counter that does not exist yet is created as
    ``next_value`` does."""
    stmt = _SUIVANTS_PG if session.get_bind().dialect.name == "postgresql" else _SUIVANTS
    values = {str(nom): int(valeur) for nom, valeur in (await session.execute(stmt, {"noms": list(names)})).all()}
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


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().upper()


def sigle(nom_court: str | None, nom: str) -> str:
    """The organisation's short code printed in its numbers (``REC-MUSAD-2026-000001``): its short name when it
    has one, else the initials of its name (stop words left out); ASCII capitals and digits, at most 8."""
    court = re.sub(r"[^A-Z0-9]", "", _ascii(nom_court or ""))
    if court:
        return court[:SIGLE_MAX]
    mots = [m for m in re.split(r"[^A-Z0-9]+", _ascii(nom)) if m]
    initiales = "".join(m[0] for m in mots if m not in _MOTS_VIDES)
    if len(initiales) >= 2:
        return initiales[:SIGLE_MAX]
    return ("".join(mots)[:4] or "ORG").ljust(2, "X")


def sigles_candidats(base: str) -> list[str]:
    """``base``, then ``base2``, ``base3``…: the first one no other organisation holds is the organisation's."""
    return [base] + [f"{base[:SIGLE_MAX]}{n}" for n in range(2, 100)]
