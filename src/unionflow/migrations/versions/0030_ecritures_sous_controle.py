"""ecritures_sous_controle: accounts an organisation puts under four eyes

Revision ID: 0030_ecritures_sous_controle
Revises: 0029_quatre_yeux_annulations

A manual entry that touches a treasury (class 5), members' credit (4191) or an account marked ``sous_controle``
is a four-eyes request (kind ECRITURE) until a second person approves it (saisies/). Requests live in
``demande_approbation``; only the mark is new.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030_ecritures_sous_controle"
down_revision: str | Sequence[str] | None = "0029_quatre_yeux_annulations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("compte_comptable") as batch:
        batch.add_column(sa.Column("sous_controle", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("compte_comptable") as batch:
        batch.drop_column("sous_controle")
