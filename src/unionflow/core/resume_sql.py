"""Summaries kept exact by append-only signed deltas: the SQL of their compaction and rebuild, as plain text per
dialect, for every such summary (the dues statistics, cotisations/synthese_sql.py; the ledger balances per month,
comptabilite/soldes_sql.py).

The pattern (docs/architecture.md « Statistics of dues »): triggers on the source table never touch the summary,
they append signed deltas to a side table, so concurrent writers never wait on, nor deadlock over, a shared
summary row. A job folds the deltas into the summary; readers add both. This module imports nothing from the
application: migrations run the rebuild as their backfill.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Resume:
    """A summary table and its delta table, with the same ``key`` and ``figures`` columns. The first figure is
    the count of source rows in the bucket: a bucket whose count falls to 0 is empty and dropped."""

    synthese: str
    delta: str
    key: str
    figures: str
    # The summary's unique index expression (the key, where a nullable column needs a coalesce).
    conflict: str
    # Any fixed number per summary: compactions (job, CLI) and rebuilds of one summary take turns on PostgreSQL.
    advisory_lock: int

    def _columns(self) -> list[str]:
        return [c.strip() for c in self.figures.split(",")]

    def _fold(self) -> str:
        return ", ".join(f"{c} = {self.synthese}.{c} + excluded.{c}" for c in self._columns())

    def _sums(self) -> str:
        return ", ".join(f"sum({c})" for c in self._columns())

    def compact(self, dialect: str) -> list[str]:
        """Statements that fold every committed delta into the summary, to run in ONE transaction; the last one
        drops buckets left empty. Upserts go in key order, so two compactions could not deadlock even without
        the advisory lock that serialises them."""
        empty = f"DELETE FROM {self.synthese} WHERE {self._columns()[0]} = 0"
        upsert = f"ORDER BY {self.key} ON CONFLICT ({self.conflict}) DO UPDATE SET {self._fold()}"
        if dialect == "postgresql":
            # One statement moves the deltas: a delta committed meanwhile is not in its snapshot and stays for
            # the next run; readers see the deltas either pending or folded, never both nor neither.
            return [f"SELECT pg_advisory_xact_lock({self.advisory_lock})",
                    f"WITH moved AS (DELETE FROM {self.delta} RETURNING {self.key}, {self.figures}) "
                    f"INSERT INTO {self.synthese} ({self.key}, {self.figures}) "
                    f"SELECT {self.key}, {self._sums()} FROM moved GROUP BY {self.key} {upsert}",
                    empty]
        # SQLite: run under BEGIN IMMEDIATE (no other writer between the fold and the delete). "WHERE true"
        # keeps the parser from reading ON CONFLICT as a join constraint.
        return [f"INSERT INTO {self.synthese} ({self.key}, {self.figures}) "
                f"SELECT {self.key}, {self._sums()} FROM {self.delta} WHERE true GROUP BY {self.key} {upsert}",
                f"DELETE FROM {self.delta}",
                empty]

    def rebuild(self, dialect: str, sources: str, backfill: str) -> list[str]:
        """Statements that recompute the summary with ``backfill`` (an INSERT … SELECT from ``sources``) and drop
        the pending deltas, to run in ONE transaction. On PostgreSQL writers of the sources wait (SHARE lock)
        while it runs, so no delta is lost between the scan and the truncation; the statement timeout is lifted
        for it (millions of rows: tens of seconds)."""
        if dialect == "postgresql":
            return ["SET LOCAL statement_timeout = 0",
                    f"SELECT pg_advisory_xact_lock({self.advisory_lock})",
                    f"LOCK TABLE {sources} IN SHARE MODE",
                    f"TRUNCATE {self.synthese}, {self.delta}",
                    backfill]
        # SQLite: the transaction holds the only write lock.
        return [f"DELETE FROM {self.delta}", f"DELETE FROM {self.synthese}", backfill]
