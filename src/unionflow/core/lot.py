"""Writes whose values are all known in Python, sent in one round trip on PostgreSQL (docs/architecture.md,
"Payment write path").

A hot write path (a payment) builds its new rows as ORM objects and its changes to loaded rows as values, adds
them to a ``Lot``, and sends the lot once. On PostgreSQL the statements become the data-modifying CTEs of one
statement (``WITH w0 AS (INSERT …), w1 AS (UPDATE …) SELECT 1``): they run on one snapshot, each row is written
once, and foreign keys are checked at the end of the statement, so the order of the parts does not matter.
On SQLite (no data-modifying CTEs; a statement there is a function call, not a network round trip) they run
one after the other, in the order added, which must then respect the foreign keys.

After sending, the new objects are attached to the session as persistent (no second INSERT at flush) and the
changed attributes of loaded objects are set as committed values (no UPDATE at flush): the rest of the request
reads them as if the ORM had written them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from sqlalchemy import Delete, Insert, Table, Update, func, insert, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.inspection import inspect
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from unionflow.core import principal_cache
from unionflow.models.base import Base

T = TypeVar("T", bound=Base)


def _column_values(obj: Base) -> dict[str, Any]:
    """Every column of a new ORM object, Python-side defaults applied to the object itself (so that reading
    it afterwards never needs the database)."""
    mapper = inspect(obj).mapper
    values: dict[str, Any] = {}
    for attr in mapper.column_attrs:
        column = attr.columns[0]
        value = getattr(obj, attr.key)
        if value is None and column.default is not None:
            default = column.default
            value = default.arg(None) if callable(getattr(default, "arg", None)) else getattr(default, "arg", None)
            set_committed_value(obj, attr.key, value)
        values[column.key] = value
    return values


def defauts(obj: T) -> T:
    """Apply the Python-side column defaults to a new object now (ids, timestamps), e.g. before an audit
    snapshot of it."""
    _column_values(obj)
    return obj


class Lot:
    """Statements gathered for one round trip."""

    def __init__(self) -> None:
        self._statements: list[Insert | Update | Delete] = []
        self._nouveaux: list[Base] = []
        self._apres: list[Callable[[], None]] = []

    def __len__(self) -> int:
        return len(self._statements)

    def ajouter(self, *objets: Base) -> None:
        """New rows: objects of one table become one multi-row INSERT."""
        groups: dict[Any, list[dict[str, Any]]] = {}
        for obj in objets:
            groups.setdefault(inspect(obj).mapper.local_table, []).append(_column_values(obj))
            self._nouveaux.append(obj)
        for table, rows in groups.items():
            self._statements.append(insert(table).values(rows))

    def modifier(self, obj: Base, **values: Any) -> None:
        """Change columns of a loaded row by primary key; the object shows the new values at once."""
        mapper = inspect(obj).mapper
        (pk,) = mapper.primary_key
        table = cast(Table, mapper.local_table)
        identity = mapper.get_property_by_column(pk).key
        self._statements.append(update(table).where(pk == getattr(obj, identity)).values(
            {mapper.get_property(k).columns[0].key: v for k, v in values.items()}))
        for key, value in values.items():
            set_committed_value(obj, key, value)

    def executer(self, statement: Insert | Update | Delete) -> None:
        """Any other write (a cache purge, a stored answer): it returns nothing."""
        self._statements.append(statement)

    def relation(self, obj: Base, key: str, value: Sequence[Base]) -> None:
        """Set a relationship collection of a new object once it is attached (e.g. an entry's lines)."""
        self._apres.append(lambda: set_committed_value(obj, key, list(value)))

    async def envoyer(self, session: AsyncSession) -> None:
        if self._statements:
            await session.run_sync(self._send)
        self._statements, self._nouveaux, self._apres = [], [], []

    def _send(self, session: Session) -> None:
        # Pending ORM changes first: the lot may depend on them (and must not be overwritten by them).
        session.flush()
        if session.get_bind().dialect.name == "postgresql" and len(self._statements) > 1:
            parts = [stmt.cte(f"w{i}") for i, stmt in enumerate(self._statements)]
            # A membership written here must reach the other workers' principal caches: the NOTIFY rides along.
            notify = principal_cache.note_writes(session, self._statements)
            final = select(func.pg_notify(principal_cache.CHANNEL, "")) if notify else select(literal(1))
            session.execute(final.add_cte(*parts))
        else:
            for stmt in self._statements:
                session.execute(stmt)
        for obj in self._nouveaux:
            make_transient_to_detached(obj)
            session.add(obj)
        for done in self._apres:
            done()
