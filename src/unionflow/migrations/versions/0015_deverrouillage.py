"""deverrouillage: requests to move an organisation's lock date back, decided by a second person

Revision ID: 0015_deverrouillage
Revises: 0014_identite_emetteur

moving the lock date back (reopening a period) is a request with a reason, approved by a second
person under another role (clotures/deverrouillage/service.py). The lead re-chains ``down_revision`` at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_deverrouillage"
down_revision: str | Sequence[str] | None = "0014_identite_emetteur"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "demande_deverrouillage",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("date_actuelle", sa.Date(), nullable=False),
        sa.Column("date_demandee", sa.Date(), nullable=False),
        sa.Column("motif", sa.String(length=1000), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=255), nullable=False),
        sa.Column("role_demandeur", sa.String(length=40), nullable=False),
        sa.Column("date_demande", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decide_par", sa.String(length=254), nullable=True),
        sa.Column("decide_par_sub", sa.String(length=255), nullable=True),
        sa.Column("role_decideur", sa.String(length=40), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_demande_deverrouillage_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demande_deverrouillage")),
    )
    op.create_index(op.f("ix_demande_deverrouillage_organisation_id"), "demande_deverrouillage",
                    ["organisation_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_demande_deverrouillage_organisation_id"), table_name="demande_deverrouillage")
    op.drop_table("demande_deverrouillage")
