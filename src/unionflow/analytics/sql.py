"""Calendar-month keys computed by the database, identical on SQLite and PostgreSQL.

``year_month(col)`` is the ``'YYYY-MM'`` of a DATE or of a UTC timestamp. SQLite stores our timestamps as UTC
text, so ``strftime`` reads them as they are; PostgreSQL converts a ``timestamptz`` to UTC wall-clock time first
(``AT TIME ZONE 'UTC'``) so the server's TimeZone setting never moves a payment into another month. The format
strings are rendered inline, not as bound parameters, so the same expression can be grouped on.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Date, String
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement


class year_month(FunctionElement[str]):
    type = String()
    name = "year_month"
    inherit_cache = True


def _argument(element: year_month) -> Any:
    return next(iter(element.clauses))


def _is_date(element: year_month) -> bool:
    return isinstance(_argument(element).type, Date)


@compiles(year_month, "sqlite")
def _year_month_sqlite(element: year_month, compiler: SQLCompiler, **kw: Any) -> str:
    return f"strftime('%Y-%m', {compiler.process(_argument(element), **kw)})"


@compiles(year_month, "postgresql")
def _year_month_postgresql(element: year_month, compiler: SQLCompiler, **kw: Any) -> str:
    argument = compiler.process(_argument(element), **kw)
    if not _is_date(element):
        argument = f"({argument} AT TIME ZONE 'UTC')"
    return f"to_char({argument}, 'YYYY-MM')"
