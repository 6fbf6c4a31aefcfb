"""Counting what one request sends to the database: every statement (``before_cursor_execute``) and the
transaction control around them (BEGIN, COMMIT, ROLLBACK; SAVEPOINT/RELEASE reach the cursor like any
statement). Each entry is one round trip to the server.

Used by the round-trip budget tests of the payment path (tests/paiements/encaissement/test_allers_retours.py): a budget
holds only if what the code sends is counted, not what the code looks like.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine.interfaces import CacheStats
from sqlalchemy.ext.asyncio import AsyncEngine

# The principal lookup (core/auth._member_scope): one SELECT of the caller's member record and memberships.
# The "principal" work replaces it with a per-worker cache; until then the budgets exclude it explicitly.
# To count it again, build the recorder with ``exclure_principal=False``.
PRINCIPAL = re.compile(r"^SELECT membre\.id, membre\.user_sub, membre_organisation\.organisation_id")


@dataclass
class AllersRetours:
    """The statements one request sent, in order (transaction control included)."""

    dialect: str
    exclure_principal: bool = True
    statements: list[str] = field(default_factory=list)
    principal: list[str] = field(default_factory=list)
    # Statements compiled again at this execution (no cache key, or first of their shape): in the steady state
    # of a hot path there should be none (compiling the payment's statement cost a quarter of its CPU).
    compiles: list[str] = field(default_factory=list)

    def add(self, sql: str) -> None:
        text = " ".join(sql.split())
        if self.exclure_principal and PRINCIPAL.match(text):
            self.principal.append(text)
            return
        self.statements.append(text)

    @property
    def count(self) -> int:
        return len(self.statements)

    def starting(self, prefix: str) -> list[str]:
        return [s for s in self.statements if s.upper().startswith(prefix.upper())]

    def report(self) -> str:
        lines = [f"{self.dialect}: {self.count} round trips"
                 + (f" (+{len(self.principal)} principal lookup excluded)" if self.principal else "")]
        lines += [f"  {i:2d}. {s[:160]}" for i, s in enumerate(self.statements, 1)]
        return "\n".join(lines)


@contextlib.contextmanager
def allers_retours(engine: AsyncEngine, *, exclure_principal: bool = True) -> Iterator[AllersRetours]:
    """Record what ``engine`` sends inside the ``with`` block. Use with real transactions (``committed_db``):
    under the per-test rollback fixture requests run in savepoints and BEGIN/COMMIT would not be seen."""
    sync = engine.sync_engine
    recorded = AllersRetours(sync.dialect.name, exclure_principal)

    def on_statement(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, *_args: Any) -> None:
        # SQLite's BEGIN IMMEDIATE is sent from the "begin" event (core/db.py) and counted there.
        if not statement.lstrip().upper().startswith("BEGIN"):
            recorded.add(statement)
        compiled = getattr(context, "compiled", None)
        if compiled is not None and context.cache_hit is not CacheStats.CACHE_HIT:
            recorded.compiles.append(" ".join(statement.split())[:160])

    def on_begin(_conn: Any) -> None:
        recorded.add("BEGIN")

    def on_commit(_conn: Any) -> None:
        recorded.add("COMMIT")

    def on_rollback(_conn: Any) -> None:
        recorded.add("ROLLBACK")

    hooks = {"before_cursor_execute": on_statement, "begin": on_begin, "commit": on_commit,
             "rollback": on_rollback}
    for name, hook in hooks.items():
        event.listen(sync, name, hook)
    try:
        yield recorded
    finally:
        for name, hook in hooks.items():
            event.remove(sync, name, hook)
