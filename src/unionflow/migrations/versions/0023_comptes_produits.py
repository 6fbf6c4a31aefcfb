"""recettes: income account per kind of income, and money received for a donation or an event fee

Revision ID: 0023_comptes_produits
Revises: 0022_recherche_listes

``compte_produit`` holds an organisation's choice of income account per kind of income (no row:
the default account); ``paiement.nature`` (DON, EVENEMENT) and ``paiement.evenement_id`` record money received at
the counter for no dues nor adhesion. The lead re-chains ``down_revision`` at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_comptes_produits"
down_revision: str | Sequence[str] | None = "0022_recherche_listes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

T = "compte_produit"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("nature", sa.String(length=30), nullable=False),
        sa.Column("numero_compte", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_compte_produit_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_compte_produit")),
        sa.UniqueConstraint("organisation_id", "nature", name="uq_compte_produit_organisation_nature"),
    )
    op.create_index(op.f("ix_compte_produit_organisation_id"), T, ["organisation_id"])
    with op.batch_alter_table("paiement") as batch:
        batch.add_column(sa.Column("nature", sa.String(length=30), nullable=True))
        batch.add_column(sa.Column("evenement_id", sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f("fk_paiement_evenement_id_evenement"), "evenement", ["evenement_id"], ["id"])
        batch.create_index(op.f("ix_paiement_evenement_id"), ["evenement_id"])


def downgrade() -> None:
    with op.batch_alter_table("paiement") as batch:
        batch.drop_index(op.f("ix_paiement_evenement_id"))
        batch.drop_constraint(op.f("fk_paiement_evenement_id_evenement"), type_="foreignkey")
        batch.drop_column("evenement_id")
        batch.drop_column("nature")
    op.drop_index(op.f("ix_compte_produit_organisation_id"), table_name=T)
    op.drop_table(T)
