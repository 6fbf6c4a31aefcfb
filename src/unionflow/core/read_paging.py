"""Paging for the session-free read path (docs/architecture.md, "Read path"): prebuilt Core statements, rows out.

Two things make a deep page cost what page 0 costs (docs/decisions.md, "lectures"):

- **Keyset anchors.** ``OFFSET n`` walks n index entries however it is written (the deferred join of
  ``page_statement`` only makes it an index-only walk: 40,000 entries for page 2000 of 20). After serving a deep
  page, the worker remembers the sort key of its first and last rows ("the row at offset n has key k") for
  ``ANCHOR_SECONDS``; the next request for that page or the one after it seeks to the key through the same
  index and skips at most a page. Positions can therefore lag writes that happened before the anchor by at most
  ``ANCHOR_SECONDS`` — the same uncertainty as a request that arrived that much earlier. Pages below
  ``DEFERRED_JOIN_MIN_OFFSET`` never use anchors.
- **Plan estimates.** Totals above the cap are PostgreSQL's plan estimate (core/pagination.count_rows); the
  estimate only moves when the statistics do, so it is kept for ``ESTIMATE_SECONDS`` instead of planning an
  ``EXPLAIN`` per request.

Both are kept per worker, only for reads on an autocommit connection (committed rows, the same for everyone):
a read inside a transaction (the tests' harness) may see its own uncommitted rows and neither uses nor feeds them.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from sqlalchemy import Integer, Select, bindparam, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import operators

from unionflow.core.db import autocommits
from unionflow.core.pagination import DEFERRED_JOIN_MIN_OFFSET, PageParams, count_rows, estimate_rows

ANCHOR_SECONDS = 2.0
ESTIMATE_SECONDS = 10.0
# Per worker; each entry is a few tuples.
MAX_ENTRIES = 2048


class _Recent:
    """A bounded map whose entries expire ``ttl`` seconds after they were stored."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self.entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        found = self.entries.get(key)
        if found is None or time.monotonic() - found[0] > self.ttl:
            return None
        return found[1]

    def put(self, key: Hashable, value: Any) -> None:
        self.entries[key] = (time.monotonic(), value)
        self.entries.move_to_end(key)
        while len(self.entries) > MAX_ENTRIES:
            self.entries.popitem(last=False)

    def clear(self) -> None:
        self.entries.clear()


anchors = _Recent(ANCHOR_SECONDS)
estimates = _Recent(ESTIMATE_SECONDS)


def page_statement(base: Select[Any], order: tuple[Any, ...], pk: Any, deep: bool) -> Select[Any]:
    """One page of a Core statement, ``limit`` and ``offset`` as named parameters. Deep pages page the primary
    keys alone (an index-only scan of the sort key's index), then read just the page's rows, as
    ``core.pagination.page_rows`` does for ORM statements."""
    limit, offset = bindparam("limit", type_=Integer), bindparam("offset", type_=Integer)
    if not deep:
        return base.order_by(*order).limit(limit).offset(offset)
    ids = base.with_only_columns(pk).order_by(*order).limit(limit).offset(offset).subquery("page_ids")
    return select(*base.selected_columns).select_from(pk.table.join(ids, pk == ids.c[pk.name])).order_by(*order)


# For prebuilt statements (module constants): built once, keyed by the statement objects themselves.
prebuilt_page = functools.cache(page_statement)


def _sort_columns(order: tuple[Any, ...]) -> tuple[list[Any], bool] | None:
    """The ORDER BY's columns and whether it is descending, when every term goes the same way (a row-value
    comparison then seeks it); None otherwise."""
    columns, directions = [], set()
    for term in order:
        modifier = getattr(term, "modifier", None)
        directions.add(modifier is operators.desc_op)
        columns.append(term.element if modifier in (operators.desc_op, operators.asc_op) else term)
    return (columns, directions.pop()) if len(directions) == 1 else None


@functools.cache
def _seek(base: Select[Any], order: tuple[Any, ...]) -> Select[Any] | None:
    """``base`` restricted to rows at or after the anchor ``anchor_<i>`` in ``order``."""
    sort = _sort_columns(order)
    if sort is None:
        return None
    columns, descending = sort
    key = tuple_(*columns)
    anchor = tuple_(*(bindparam(f"anchor_{i}", type_=c.type) for i, c in enumerate(columns)))
    return base.where(key <= anchor if descending else key >= anchor)


def _frozen(values: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in values.items()))


async def paginate_rows(connection: AsyncConnection, base: Select[Any], order: tuple[Any, ...], pk: Any,
                        values: dict[str, Any], params: PageParams, *,
                        prebuilt: bool = True) -> tuple[list[Any], int, bool]:
    """Rows (not ORM objects) of one page of ``base`` in ``order``, and (total, exact).

    ``prebuilt``: ``base`` is a long-lived statement; only those keep their page statements, anchors and
    estimates (a statement built per request would never be found again)."""
    shared = prebuilt and autocommits(connection)
    group = (base, order, _frozen(values)) if shared else None
    stmt, bound, skip = None, values, params.offset
    if group is not None and params.offset >= DEFERRED_JOIN_MIN_OFFSET:
        stmt, bound, skip = _from_anchor(group, base, order, values, params.offset)
    if stmt is None:
        build = prebuilt_page if prebuilt else page_statement
        stmt = build(base, order, pk, params.offset >= DEFERRED_JOIN_MIN_OFFSET)
    rows = list((await connection.execute(stmt, {**bound, "limit": params.size, "offset": skip})).all())
    if group is not None and rows and params.offset >= DEFERRED_JOIN_MIN_OFFSET:
        sort = _sort_columns(order)
        if sort is not None:
            anchors.put((group, params.offset), tuple(rows[0]._mapping[c] for c in sort[0]))
            anchors.put((group, params.offset + len(rows) - 1), tuple(rows[-1]._mapping[c] for c in sort[0]))
    if params.page == 0 and len(rows) < params.size:
        return rows, len(rows), True
    estimator = None
    if group is not None:
        async def estimator() -> int:
            cached = estimates.get(group)
            if cached is None:
                cached = await estimate_rows(connection, base, values)
                estimates.put(group, cached)
            return int(cached)
    total, exact = await count_rows(connection, base, params=values, estimator=estimator)
    return rows, total, exact


def _from_anchor(group: Hashable, base: Select[Any], order: tuple[Any, ...], values: dict[str, Any],
                 offset: int) -> tuple[Select[Any] | None, dict[str, Any], int]:
    """The statement seeking from an anchor at ``offset`` or one page before it, if one is recent."""
    seek = _seek(base, order)
    if seek is None:
        return None, values, offset
    for anchor_offset in (offset, offset - 1):
        key = anchors.get((group, anchor_offset))
        if key is not None:
            bound = {**values, **{f"anchor_{i}": v for i, v in enumerate(key)}}
            # From the previous page's last row, skip that row itself.
            return prebuilt_page(seek, order, None, False), bound, offset - anchor_offset
    return None, values, offset
