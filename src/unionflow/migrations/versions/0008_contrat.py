"""contrat: opt-in waiting list per event; aid type codes as long as reference codes

Revision ID: 0008_contrat
Revises: 0007_integrations
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_contrat"
down_revision: str | Sequence[str] | None = "0007_integrations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Existing events were created when every full event queued: keep that behaviour for them.
    with op.batch_alter_table("evenement") as batch:
        batch.add_column(sa.Column("liste_attente_active", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute(sa.text("UPDATE evenement SET liste_attente_active = :vrai").bindparams(vrai=True))
    # Aid types come from type_reference, whose codes have up to 50 characters.
    for table in ("demande_aide", "proposition_aide"):
        with op.batch_alter_table(table) as batch:
            batch.alter_column("type_aide", existing_type=sa.String(length=20), type_=sa.String(length=50),
                               existing_nullable=False)


def downgrade() -> None:
    for table in ("demande_aide", "proposition_aide"):
        with op.batch_alter_table(table) as batch:
            batch.alter_column("type_aide", existing_type=sa.String(length=50), type_=sa.String(length=20),
                               existing_nullable=False)
    with op.batch_alter_table("evenement") as batch:
        batch.drop_column("liste_attente_active")
