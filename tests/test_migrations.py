"""Migrations and models agree, and the revision graph has one head."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from unionflow import models
from unionflow.migrations.alembic import alembic_config


def test_single_head():
    assert ScriptDirectory.from_config(alembic_config()).get_heads() == ["0010_journaux"]


async def test_migrated_schema_matches_the_models(app):
    def diff(connection):
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        return compare_metadata(context, models.Base.metadata)

    async with app.state.engine.connect() as connection:
        differences = await connection.run_sync(diff)
    assert differences == [], differences
