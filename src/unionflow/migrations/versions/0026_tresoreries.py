"""tresor: the organisation's treasuries; payments and payouts name their treasury, a payout its counterpart

Revision ID: 0026_tresoreries
Revises: 0025_avoir_mouvements

See docs/decisions.md, "trésoreries (tresor)". The lead re-chains ``down_revision``.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_tresoreries"
down_revision: str | Sequence[str] | None = "0025_avoir_mouvements"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

T = "tresorerie"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_tresorerie", sa.String(length=20), nullable=False),
        sa.Column("nom", sa.String(length=200), nullable=False),
        sa.Column("numero_compte", sa.String(length=20), nullable=False),
        sa.Column("decouvert_autorise", sa.Numeric(18, 2), nullable=True),
        sa.Column("actif", sa.Boolean(), nullable=False),
        sa.Column("par_defaut", sa.Boolean(), nullable=False),
        sa.Column("cree_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_tresorerie_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tresorerie")),
        sa.UniqueConstraint("organisation_id", "numero_compte", name="uq_tresorerie_organisation_compte"),
        sa.UniqueConstraint("organisation_id", "nom", name="uq_tresorerie_organisation_nom"),
    )
    op.create_index(op.f("ix_tresorerie_organisation_id"), T, ["organisation_id"])
    with op.batch_alter_table("versement") as batch:
        batch.add_column(sa.Column("tresorerie_id", sa.Uuid(), nullable=True))
        batch.add_column(sa.Column("compte_charge", sa.String(length=20), nullable=True))
        batch.create_foreign_key(op.f("fk_versement_tresorerie_id_tresorerie"), T, ["tresorerie_id"], ["id"])
    with op.batch_alter_table("paiement") as batch:
        batch.add_column(sa.Column("tresorerie_id", sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f("fk_paiement_tresorerie_id_tresorerie"), T, ["tresorerie_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("paiement") as batch:
        batch.drop_constraint(op.f("fk_paiement_tresorerie_id_tresorerie"), type_="foreignkey")
        batch.drop_column("tresorerie_id")
    with op.batch_alter_table("versement") as batch:
        batch.drop_constraint(op.f("fk_versement_tresorerie_id_tresorerie"), type_="foreignkey")
        batch.drop_column("compte_charge")
        batch.drop_column("tresorerie_id")
    op.drop_index(op.f("ix_tresorerie_organisation_id"), table_name=T)
    op.drop_table(T)
