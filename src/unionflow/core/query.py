"""Small query helpers shared by repositories."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, false, func, or_


def contains_ci(columns: list[Any], text: str) -> ColumnElement[bool]:
    """Case-insensitive substring match on any of ``columns``; LIKE wildcards in ``text`` are literal."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    clauses = [func.lower(c).like(pattern, escape="\\") for c in columns]
    return or_(*clauses) if clauses else false()
