"""cloture_mensuelle: the months an organisation closed, with the checklist figures verified at closing

Revision ID: 0016_cloture_mensuelle
Revises: 0015_deverrouillage

See clotures/mensuelle/service.py. The lead re-chains at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_cloture_mensuelle"
down_revision: str | Sequence[str] | None = "0015_deverrouillage"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MONEY = sa.Numeric(precision=18, scale=2)


def upgrade() -> None:
    op.create_table(
        "cloture_mensuelle",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("annee", sa.Integer(), nullable=False),
        sa.Column("mois", sa.Integer(), nullable=False),
        sa.Column("date_fin", sa.Date(), nullable=False),
        sa.Column("caisse_comptee", MONEY, nullable=False),
        sa.Column("caisse_comptable", MONEY, nullable=False),
        sa.Column("ecart_caisse", MONEY, nullable=False),
        sa.Column("compte_ecart", sa.String(length=20), nullable=True),
        sa.Column("motif_ecart", sa.String(length=500), nullable=True),
        sa.Column("ecriture_ecart_id", sa.Uuid(), nullable=True),
        sa.Column("banque_releve", MONEY, nullable=False),
        sa.Column("banque_comptable", MONEY, nullable=False),
        sa.Column("wave_releve", MONEY, nullable=False),
        sa.Column("wave_comptable", MONEY, nullable=False),
        sa.Column("delai_declarations_jours", sa.Integer(), nullable=False),
        sa.Column("cloturee_par", sa.String(length=254), nullable=False),
        sa.Column("cloturee_par_sub", sa.String(length=255), nullable=False),
        sa.Column("date_cloture", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_cloture_mensuelle_organisation_id_organisation")),
        sa.ForeignKeyConstraint(["ecriture_ecart_id"], ["ecriture_comptable.id"],
                                name=op.f("fk_cloture_mensuelle_ecriture_ecart_id_ecriture_comptable")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cloture_mensuelle")),
        sa.UniqueConstraint("organisation_id", "annee", "mois", name=op.f("uq_cloture_mensuelle_organisation_id")),
    )


def downgrade() -> None:
    op.drop_table("cloture_mensuelle")
