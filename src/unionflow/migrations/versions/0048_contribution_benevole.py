"""contribution_benevole: the register of volunteer time, a voluntary contribution in kind (SYCEBNL notes)

Revision ID: 0048_contribution_benevole
Revises: 0047_soldes_mensuels

One row per contribution: the member, the day, the hours, the hourly rate the organisation chose and the value
(rounded to the franc), what was done; a line entered by mistake is cancelled (kept, with who, when and why),
never deleted. Shown off the balance sheet in note 7 of the SYCEBNL notes; never booked.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0048_contribution_benevole"
down_revision: str | Sequence[str] | None = "0047_soldes_mensuels"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)
MONEY = sa.Numeric(18, 2)


def upgrade() -> None:
    op.create_table(
        "contribution_benevole",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("date_contribution", sa.Date(), nullable=False),
        sa.Column("heures", sa.Numeric(8, 2), nullable=False),
        sa.Column("taux_horaire", MONEY, nullable=False),
        sa.Column("valeur", MONEY, nullable=False),
        sa.Column("activite", sa.String(length=300), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("enregistre_par", sa.String(length=254), nullable=False),
        sa.Column("annule_par", sa.String(length=254), nullable=True),
        sa.Column("motif_annulation", sa.String(length=500), nullable=True),
        sa.Column("date_annulation", DATE, nullable=True),
        sa.Column("created_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_contribution_benevole_organisation_id_organisation")),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_contribution_benevole_membre_id_membre")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contribution_benevole")),
    )
    op.create_index("ix_contribution_benevole_org_date", "contribution_benevole",
                    ["organisation_id", "date_contribution"])
    op.create_index(op.f("ix_contribution_benevole_membre_id"), "contribution_benevole", ["membre_id"])


def downgrade() -> None:
    op.drop_table("contribution_benevole")
