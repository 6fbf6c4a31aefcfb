"""Programmatic Alembic: migrations ship inside the package, so ``unionflow migrate`` works anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config

HERE = Path(__file__).parent


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.set_main_option("version_locations", str(HERE / "versions"))
    if url:
        cfg.attributes["url"] = url
    return cfg


def upgrade(url: str | None = None, revision: str = "heads") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)


async def revisions_courantes(connection: Any) -> set[str]:
    """The revisions the database is at (raises while it has no ``alembic_version`` table yet)."""
    from sqlalchemy import text

    return set((await connection.execute(text("SELECT version_num FROM alembic_version"))).scalars())
