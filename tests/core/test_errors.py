"""Which failures are an outage (503 + Retry-After) and which stay a bug (500)."""

from __future__ import annotations

import sqlite3

from sqlalchemy import exc as sa_exc

from unionflow.core.errors import database_unavailable


def _wrapped(error: Exception, kind: type[sa_exc.DBAPIError] = sa_exc.OperationalError) -> Exception:
    try:
        try:
            raise error
        except Exception as original:
            raise kind("SELECT 1", {}, original) from original
    except Exception as wrapped:
        return wrapped


def test_outages_are_recognised():
    assert database_unavailable(_wrapped(sqlite3.OperationalError("database is locked")))
    assert database_unavailable(ConnectionRefusedError(111, "Connect call failed"))
    assert database_unavailable(TimeoutError())
    assert database_unavailable(sa_exc.TimeoutError("QueuePool limit reached"))


def test_bugs_are_not_outages():
    assert not database_unavailable(_wrapped(sqlite3.OperationalError("no such table: membre")))
    assert not database_unavailable(_wrapped(ValueError("bad parameter"), sa_exc.ProgrammingError))
    assert not database_unavailable(KeyError("x"))
    try:
        try:
            raise TimeoutError
        except TimeoutError:
            raise RuntimeError("a bug while handling a timeout") from None
    except RuntimeError as bug:
        assert not database_unavailable(bug)
