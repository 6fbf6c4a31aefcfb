"""personal data: a member's opposition to a processing of the register (Loi 2008-12)

Revision ID: 0042_opposition_traitement
Revises: 0041_sms_lien_premium

The effect of an approved OPPOSITION request (a kind of the four-eyes requests, ``demande_approbation``): one row
per member and opposed processing, in force until the member withdraws it (dated, never erased). The request kind
itself needs no schema change (``demande_approbation.genre`` is a text).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0042_opposition_traitement"
down_revision: str | Sequence[str] | None = "0041_sms_lien_premium"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)
EN_VIGUEUR = sa.text("retiree_le IS NULL")


def upgrade() -> None:
    op.create_table(
        "opposition_traitement",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("traitement", sa.String(length=40), nullable=False),
        sa.Column("demande_id", sa.Uuid(), nullable=False),
        sa.Column("motif", sa.String(length=1000), nullable=False),
        sa.Column("effective_le", DATE, nullable=False),
        sa.Column("retiree_le", DATE, nullable=True),
        sa.Column("retiree_par", sa.String(length=511), nullable=True),
        sa.Column("retiree_par_nom", sa.String(length=254), nullable=True),
        sa.Column("created_at", DATE, nullable=False),
        sa.Column("updated_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_opposition_traitement_membre_id_membre"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_opposition_traitement_organisation_id_organisation"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["demande_id"], ["demande_approbation.id"],
                                name=op.f("fk_opposition_traitement_demande_id_demande_approbation"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_opposition_traitement")),
    )
    op.create_index("ix_opposition_traitement_membre", "opposition_traitement", ["membre_id", "effective_le"])
    op.create_index("uq_opposition_traitement_en_vigueur", "opposition_traitement", ["membre_id", "traitement"],
                    unique=True, sqlite_where=EN_VIGUEUR, postgresql_where=EN_VIGUEUR)


def downgrade() -> None:
    op.drop_index("uq_opposition_traitement_en_vigueur", table_name="opposition_traitement")
    op.drop_index("ix_opposition_traitement_membre", table_name="opposition_traitement")
    op.drop_table("opposition_traitement")
