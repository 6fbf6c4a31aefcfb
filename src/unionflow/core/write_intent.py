"""Whether the current transaction will write, for SQLite's BEGIN (core/db.py's hooks read it).

Its own module, below db.py and maintenance.py, so that the maintenance gate (which db.py's request transaction
calls) can set it without importing db.py back."""

from __future__ import annotations

import contextvars

# SQLite upgrades a deferred read transaction to a write one lazily, and two such upgrades deadlock
# ("database is locked") without waiting on busy_timeout. Write requests therefore start with
# BEGIN IMMEDIATE, which queues writers on the busy timeout instead; reads keep plain BEGIN (WAL).
sqlite_write_intent: contextvars.ContextVar[bool] = contextvars.ContextVar("sqlite_write_intent", default=False)
