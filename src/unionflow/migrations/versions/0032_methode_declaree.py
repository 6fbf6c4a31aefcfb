"""methode_declaree: the method a member declared, kept when the treasurer corrects it

Revision ID: 0032_methode_declaree
Revises: 0031_ecart_caisse_quatre_yeux

The treasurer confirming a declaration may correct its method (a
Wave transfer declared « Autre »); the payment is booked under the corrected method and keeps the declared one,
printed on the receipt. ``paiement.methode`` also takes the new value WAVE_TRANSFERT (a plain string column: no
schema change for it).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032_methode_declaree"
down_revision: str | Sequence[str] | None = "0031_ecart_caisse_quatre_yeux"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("paiement") as batch:
        batch.add_column(sa.Column("methode_declaree", sa.String(20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("paiement") as batch:
        batch.drop_column("methode_declaree")
