"""Whether the current transaction will write, for SQLite's BEGIN (core/db.py's hooks read it).

Its own module, below db.py and maintenance.py, so that the maintenance gate (which db.py's request transaction
calls) can set it without importing db.py back."""

from __future__ import annotations

import contextvars
import re

# SQLite upgrades a deferred read transaction to a write one lazily, and two such upgrades deadlock
# ("database is locked") without waiting on busy_timeout. Write requests therefore start with
# BEGIN IMMEDIATE, which queues writers on the busy timeout instead; reads keep plain BEGIN (WAL).
sqlite_write_intent: contextvars.ContextVar[bool] = contextvars.ContextVar("sqlite_write_intent", default=False)

# GET requests that write one row all the same: the read of a member's file by someone else, logged in its access
# log (core/acces_dossier.py, Loi 2008-12). On SQLite they must begin IMMEDIATE like any writer, or the lazy
# upgrade deadlocks with a concurrent writer (the scheduler's tick) and the page answers 503 « database is locked ».
_LECTURES_QUI_ECRIVENT = re.compile(
    r"^(/console/membres/[^/]+|/api/membres/[^/]+|/api/membres/[^/]+/organisations|/api/membres/numero/[^/]+"
    r"|/api/adhesions/membre/[^/]+|/api/cotisations/membre/[^/]+)/?$")


def ecrit(method: str, path: str) -> bool:
    """Whether a request to ``path`` writes: every method but GET/HEAD/OPTIONS, and the logged reads above."""
    return method not in {"GET", "HEAD", "OPTIONS"} or bool(_LECTURES_QUI_ECRIVENT.match(path))
