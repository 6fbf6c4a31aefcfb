"""tresorier: receipt verification keys, organisation logo

Revision ID: 0014_tresorier
Revises: 0005_resultat_cache
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_tresorier"
down_revision: str | Sequence[str] | None = "0005_resultat_cache"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("organisation", sa.Column("logo_document_id", sa.Uuid(), nullable=True))
    op.add_column("paiement", sa.Column("cle_verification", sa.String(length=32), nullable=True))
    # Receipts already handed out get a key too, so their verification link works once reprinted.
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE paiement SET cle_verification = substr(md5(random()::text || id::text), 1, 16)")
    else:
        op.execute("UPDATE paiement SET cle_verification = lower(hex(randomblob(8)))")
    with op.batch_alter_table("paiement") as batch:
        batch.alter_column("cle_verification", existing_type=sa.String(length=32), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("paiement") as batch:
        batch.drop_column("cle_verification")
    with op.batch_alter_table("organisation") as batch:
        batch.drop_column("logo_document_id")
