"""Writes whose values are all known in Python, sent in one round trip on PostgreSQL (docs/architecture.md,
"Payment write path").

A hot write path (a payment) builds its new rows as ORM objects and its changes to loaded rows as values, adds
them to a ``Lot``, and sends the lot once. On PostgreSQL the statements become the data-modifying CTEs of one
statement (``WITH w0 AS (INSERT …), w1 AS (UPDATE …) SELECT 1``): they run on one snapshot, each row is written
once, and foreign keys are checked at the end of the statement, so the order of the parts does not matter.
On SQLite (no data-modifying CTEs; a statement there is a function call, not a network round trip) they run
one after the other, in the order added, which must then respect the foreign keys.

Every part is a statement with named bind parameters, built once per table, columns and position and kept
(``_template``): the combined statement then has a SQLAlchemy cache key, so it is compiled once per shape
instead of at every payment; the combined statement of kept parts is kept as well (``_combined``), its cache key
then computed once. A multi-row ``VALUES`` or a dialect ``INSERT … ON CONFLICT`` has no cache key in
SQLAlchemy 2.0, and compiling the payment's statement each time cost a quarter of its CPU (profile).

Audit entries are given apart (``journaliser``): they are sent after the other rows, in the order given (on SQLite
in one executemany), so that a part added by another function (an accounting entry and its audit entry,
comptabilite/service.py ``poster_automatique``) keeps the audit trail in the order things happened.

After sending, the new objects are attached to the session as persistent (no second INSERT at flush) and the
changed attributes of loaded objects are set as committed values (no UPDATE at flush): the rest of the request
reads them as if the ORM had written them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar, cast

from sqlalchemy import (
    CTE,
    Column,
    Delete,
    Insert,
    Select,
    Table,
    Update,
    bindparam,
    func,
    insert,
    literal,
    select,
    update,
)
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
    state = inspect(obj)
    values: dict[str, Any] = {}
    for attr in state.mapper.column_attrs:
        column = attr.columns[0]
        value = getattr(obj, attr.key)
        if value is None and column.default is not None:
            default = column.default
            value = default.arg(None) if callable(getattr(default, "arg", None)) else getattr(default, "arg", None)
            set_committed_value(obj, attr.key, value)
        elif value is None and attr.key not in state.dict:
            # A nullable column the constructor never named: known to be NULL, not "to load" once persistent.
            set_committed_value(obj, attr.key, None)
        values[column.key] = value
    return values


def defauts(obj: T) -> T:
    """Apply the Python-side column defaults to a new object now (ids, timestamps), e.g. before an audit
    snapshot of it."""
    _column_values(obj)
    return obj


@dataclass(frozen=True)
class _Ligne:
    """A new row of ``table``."""
    table: Table
    values: dict[str, Any]


@dataclass(frozen=True)
class _Modification:
    """New values for some columns of the row whose primary key is ``cle``."""
    table: Table
    pk: Column[Any]
    cle: Any
    values: dict[str, Any]


@dataclass(frozen=True)
class _Garde:
    """A kept statement (built once, with bind parameters) and this call's parameters."""
    statement: Insert | Update | Delete
    params: dict[str, Any]


_Part = _Ligne | _Modification | _Garde


@lru_cache(maxsize=512)
def _template(table: Table, columns: tuple[str, ...], name: str, pk: Column[Any] | None) -> CTE:
    """The part ``name`` of a combined statement: an INSERT of one row (``pk`` None) or an UPDATE by primary
    key, its values as bind parameters prefixed by ``name`` (unique in the statement)."""
    values = {c: bindparam(f"{name}_{c}", type_=table.c[c].type) for c in columns}
    if pk is None:
        return insert(table).values(values).cte(name)
    return update(table).where(pk == bindparam(f"{name}_cle", type_=pk.type)).values(values).cte(name)


@lru_cache(maxsize=128)
def _garde_cte(statement: Insert | Update | Delete, name: str) -> CTE:
    """A kept statement as the part ``name`` of a combined statement, kept in turn."""
    return statement.cte(name)


@lru_cache(maxsize=256)
def _combined(ctes: tuple[CTE, ...], notify: bool) -> Select[Any]:
    """The combined statement of kept parts, kept in turn: SQLAlchemy memoizes a statement's cache key on the
    object, so a payment no longer walks its ten parts' columns to find the compiled form (profile: 0.6 ms of a
    payment's CPU). Parts are kept objects, so equal shapes give equal tuples."""
    final = select(func.pg_notify(principal_cache.CHANNEL, "")) if notify else select(literal(1))
    return final.add_cte(*ctes)


class Lot:
    """Statements gathered for one round trip."""

    def __init__(self) -> None:
        self._parts: list[_Part] = []
        self._nouveaux: list[Base] = []
        self._apres: list[Callable[[], None]] = []
        self._journal: list[Base] = []

    def __len__(self) -> int:
        return len(self._parts) + len(self._journal)

    def ajouter(self, *objets: Base) -> None:
        """New rows (on SQLite, the rows of one table in one executemany)."""
        for obj in objets:
            self._parts.append(_Ligne(cast(Table, inspect(obj).mapper.local_table), _column_values(obj)))
            self._nouveaux.append(obj)

    def journaliser(self, *entrees: Base) -> None:
        """Audit entries: new rows sent after every other part, in the order given."""
        self._journal.extend(entrees)

    def modifier(self, obj: Base, **values: Any) -> None:
        """Change columns of a loaded row by primary key; the object shows the new values at once."""
        mapper = inspect(obj).mapper
        (pk,) = mapper.primary_key
        table = cast(Table, mapper.local_table)
        identity = mapper.get_property_by_column(pk).key
        self._parts.append(_Modification(table, cast(Column[Any], pk), getattr(obj, identity),
                                         {mapper.get_property(k).columns[0].key: v for k, v in values.items()}))
        for key, value in values.items():
            set_committed_value(obj, key, value)

    def executer(self, statement: Insert | Update | Delete, params: dict[str, Any]) -> None:
        """Any other write (a cache purge): it returns nothing. ``statement`` is a kept object (built once) whose
        bind parameters ``params`` fill, their names unique in the lot: a statement built at each call would make
        the combined statement new again, its cache key computed at every payment."""
        self._parts.append(_Garde(statement, params))

    def relation(self, obj: Base, key: str, value: Sequence[Base]) -> None:
        """Set a relationship collection of a new object once it is attached (e.g. an entry's lines)."""
        self._apres.append(lambda: set_committed_value(obj, key, list(value)))

    async def envoyer(self, session: AsyncSession) -> None:
        self.ajouter(*self._journal)
        if self._parts:
            await session.run_sync(self._send)
        self._parts, self._nouveaux, self._apres, self._journal = [], [], [], []

    def _send(self, session: Session) -> None:
        # Pending ORM changes first: the lot may depend on them (and must not be overwritten by them).
        session.flush()
        if session.get_bind().dialect.name == "postgresql" and len(self._parts) > 1:
            self._send_combined(session)
        else:
            self._send_in_order(session)
        for obj in self._nouveaux:
            make_transient_to_detached(obj)
            session.add(obj)
        for done in self._apres:
            done()

    def _send_combined(self, session: Session) -> None:
        ctes: list[CTE] = []
        params: dict[str, Any] = {}
        for part in self._parts:
            name = f"w{len(ctes)}"
            if isinstance(part, _Ligne):
                ctes.append(_template(part.table, tuple(part.values), name, None))
                params.update({f"{name}_{c}": v for c, v in part.values.items()})
            elif isinstance(part, _Modification):
                ctes.append(_template(part.table, tuple(part.values), name, part.pk))
                params.update({f"{name}_{c}": v for c, v in part.values.items()})
                params[f"{name}_cle"] = part.cle
            else:
                ctes.append(_garde_cte(part.statement, name))
                params.update(part.params)
        # A membership written here must reach the other workers' principal caches: the NOTIFY rides along.
        notify = principal_cache.note_writes(session, [_table(part) for part in self._parts])
        session.execute(_combined(tuple(ctes), notify), params)

    def _send_in_order(self, session: Session) -> None:
        i = 0
        while i < len(self._parts):
            part = self._parts[i]
            if isinstance(part, _Ligne):
                # Consecutive rows of one table: one executemany.
                rows = [part.values]
                while i + 1 < len(self._parts) and isinstance(nxt := self._parts[i + 1], _Ligne) \
                        and nxt.table is part.table and nxt.values.keys() == part.values.keys():
                    rows.append(nxt.values)
                    i += 1
                session.execute(insert(part.table), rows)
            elif isinstance(part, _Modification):
                session.execute(update(part.table).where(part.pk == part.cle).values(part.values))
            else:
                session.execute(part.statement, part.params)
            i += 1


def _table(part: _Part) -> Table | None:
    if isinstance(part, _Ligne | _Modification):
        return part.table
    return cast(Table | None, getattr(part.statement, "table", None))
