"""Migrations and models agree, and the revision graph has one head."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from unionflow import models
from unionflow.migrations.alembic import alembic_config


def test_one_linear_chain():
    """One head, and from 0005 on every revision has exactly one parent: a newcomer reads them in order."""
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1
    after_merge = [rev for rev in script.walk_revisions() if rev.revision >= "0005"]
    assert all(isinstance(rev.down_revision, str) for rev in after_merge)


async def test_migrated_schema_matches_the_models(app):
    def diff(connection):
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        return compare_metadata(context, models.Base.metadata)

    async with app.state.engine.connect() as connection:
        differences = await connection.run_sync(diff)
    assert differences == [], differences
