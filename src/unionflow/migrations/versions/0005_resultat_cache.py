"""resultat_cache: shared short-lived results of statistics

Revision ID: 0005_resultat_cache
Revises: 0004_merge
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_resultat_cache"
down_revision: str | Sequence[str] | None = "0004_merge"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "resultat_cache",
        sa.Column("cle", sa.String(length=200), nullable=False),
        sa.Column("valeur", sa.JSON(), nullable=False),
        sa.Column("calcule_le", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("cle", name=op.f("pk_resultat_cache")),
    )


def downgrade() -> None:
    op.drop_table("resultat_cache")
