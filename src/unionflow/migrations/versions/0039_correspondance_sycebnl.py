"""sycebnl: an organisation's mapping of account-number prefixes to SYCEBNL headings

Revision ID: 0039_correspondance_sycebnl
Revises: 0038_registre_dons

No row for an organisation: the default mapping shipped in code (comptabilite/sycebnl/rubriques.py) applies, so
nothing is seeded. The lead re-chains ``down_revision`` at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0039_correspondance_sycebnl"
down_revision: str | Sequence[str] | None = "0038_registre_dons"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

T = "correspondance_sycebnl"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("prefixe", sa.String(length=12), nullable=False),
        sa.Column("rubrique", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_correspondance_sycebnl_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_correspondance_sycebnl")),
        sa.UniqueConstraint("organisation_id", "prefixe", name="uq_correspondance_sycebnl_prefixe"),
    )
    op.create_index(op.f("ix_correspondance_sycebnl_organisation_id"), T, ["organisation_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_correspondance_sycebnl_organisation_id"), table_name=T)
    op.drop_table(T)
