"""the organisation's accounting referential (SYCEBNL normal, SYCEBNL système minimal de trésorerie, PCMS)

Revision ID: 0040_referentiel_comptable
Revises: 0039_correspondance_sycebnl

One row per recorded choice, effective from a fiscal year on; rows are never updated (they are the history).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0040_referentiel_comptable"
down_revision: str | Sequence[str] | None = "0039_correspondance_sycebnl"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "referentiel_comptable",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("referentiel", sa.String(length=20), nullable=False),
        sa.Column("exercice", sa.Integer(), nullable=False),
        sa.Column("reference_agrement", sa.String(length=100), nullable=True),
        sa.Column("motif", sa.String(length=500), nullable=False),
        sa.Column("choisi_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        sa.Column("updated_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_referentiel_comptable_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_referentiel_comptable")),
    )
    op.create_index(op.f("ix_referentiel_comptable_organisation_id"), "referentiel_comptable", ["organisation_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_referentiel_comptable_organisation_id"), table_name="referentiel_comptable")
    op.drop_table("referentiel_comptable")
