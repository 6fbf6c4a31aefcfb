"""maintenance: the shared flag that refuses writes while a restore runs

Revision ID: 0009_maintenance
Revises: 0008_contrat
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_maintenance"
down_revision: str | Sequence[str] | None = "0008_contrat"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "maintenance",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("actif", sa.Boolean(), nullable=False),
        sa.Column("motif", sa.String(length=200), nullable=True),
        sa.Column("debut", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expire_le", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_maintenance")),
    )
    op.bulk_insert(table, [{"id": 1, "actif": False}])


def downgrade() -> None:
    op.drop_table("maintenance")
