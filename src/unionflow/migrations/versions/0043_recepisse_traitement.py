"""personal data: the CDP's récépissé of an organisation's declaration of a processing (Loi 2008-12 art. 18)

Revision ID: 0043_recepisse_traitement
Revises: 0042_opposition_traitement

One row per organisation and processing of the register: the récépissé number and date, the declaration date if
known, who recorded it. No row: the processing is « non déclaré » for that organisation. The date d'arrêté of a
year's statements needs no column: it is the closing's ``exercice_comptable.date_cloture``.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0043_recepisse_traitement"
down_revision: str | Sequence[str] | None = "0042_opposition_traitement"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "recepisse_traitement",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("traitement", sa.String(length=40), nullable=False),
        sa.Column("numero_recepisse", sa.String(length=100), nullable=False),
        sa.Column("date_recepisse", sa.Date(), nullable=False),
        sa.Column("date_declaration", sa.Date(), nullable=True),
        sa.Column("enregistre_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        sa.Column("updated_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_recepisse_traitement_organisation_id_organisation"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recepisse_traitement")),
        sa.UniqueConstraint("organisation_id", "traitement",
                            name="uq_recepisse_traitement_organisation_traitement"),
    )


def downgrade() -> None:
    op.drop_table("recepisse_traitement")
