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


async def test_an_error_answered_by_a_handler_is_not_raised_to_the_server():
    """Starlette hands the ``Exception`` handler to its outermost middleware, which answers and then re-raises:
    uvicorn closed the kept-alive connection after the 503 of a ``CannotConnectNowError`` (issue 21). Answered
    inside the app, the error stops there: raise_app_exceptions would raise it here otherwise."""
    import asyncpg
    import httpx
    from fastapi import FastAPI

    from unionflow.config import Settings
    from unionflow.core.errors import install_error_handlers
    from unionflow.core.routing import allowed_methods

    app = FastAPI()
    app.state.settings = Settings(database_retry_after_seconds=7)
    install_error_handlers(app, allowed_methods)

    @app.get("/arret")
    async def arret() -> None:
        raise asyncpg.exceptions.CannotConnectNowError("the database system is shutting down")

    @app.get("/bogue")
    async def bogue() -> None:
        raise ValueError("a bug")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        stopping = await client.get("/arret")
        assert stopping.status_code == 503 and stopping.headers["retry-after"] == "7"
        assert (await client.get("/bogue")).status_code == 500
