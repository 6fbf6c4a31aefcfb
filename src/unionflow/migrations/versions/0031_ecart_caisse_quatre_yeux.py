"""ecart_caisse_quatre_yeux: the monthly closing's cash difference is a four-eyes entry request

Revision ID: 0031_ecart_caisse_quatre_yeux
Revises: 0030_ecritures_sous_controle

The closing records the request (kind ECRITURE, ``demande_approbation``) it opened for the cash difference; the
entry is booked by the approval. Closings before this booked the entry themselves (``ecriture_ecart_id``).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031_ecart_caisse_quatre_yeux"
down_revision: str | Sequence[str] | None = "0030_ecritures_sous_controle"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("cloture_mensuelle") as batch:
        batch.add_column(sa.Column("demande_ecart_id", sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f("fk_cloture_mensuelle_demande_ecart_id_demande_approbation"),
                                 "demande_approbation", ["demande_ecart_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("cloture_mensuelle") as batch:
        batch.drop_constraint(op.f("fk_cloture_mensuelle_demande_ecart_id_demande_approbation"), type_="foreignkey")
        batch.drop_column("demande_ecart_id")
