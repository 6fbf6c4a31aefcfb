"""Alembic environment: runs against the URL in settings (or ``-x url=...``), async drivers on both back ends."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context
from sqlalchemy.engine import Connection

from unionflow import models
from unionflow.config import get_settings
from unionflow.core.db import NO_BEGIN, async_url, create_engine
from unionflow.models.base import UTCDateTime

config = context.config
MIGRATION_STATEMENT_SECONDS = 3600.0
target_metadata = models.Base.metadata


def _url() -> str:
    return str(config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("url")
               or get_settings().database_url)


def _render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    # Migrations must not import application types: they outlive them.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure(connection: Connection | None = None, **kwargs: Any) -> None:
    context.configure(
        render_item=_render_item,  # type: ignore[arg-type]
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite alters tables by copy
        compare_type=True,
        **kwargs,
    )


def run_offline() -> None:
    _configure(url=async_url(_url()), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        # SQLite's procedure for schema changes (https://sqlite.org/lang_altertable.html#otheralter): foreign-key
        # enforcement off while tables are rebuilt (batch mode), or dropping the old copy of a parent table
        # cascades to its children. The pragma is ignored inside a transaction: sent before the first BEGIN.
        # A migration that rebuilds a parent checks what it left dangling itself (PRAGMA foreign_key_check).
        connection.execution_options(**{NO_BEGIN: True}).exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
        connection.execution_options(**{NO_BEGIN: False})
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    # Not under the statement timeout of requests: a backfill or an index over millions of rows takes minutes.
    settings = get_settings().model_copy(update={"database_statement_timeout_seconds": MIGRATION_STATEMENT_SECONDS})
    engine = create_engine(settings, _url())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    asyncio.run(run_online())
