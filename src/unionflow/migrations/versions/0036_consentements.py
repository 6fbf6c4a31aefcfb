"""personal data: consents to sensitive processing, their versioned notices, the access log of members' files

Revision ID: 0036_consentements
Revises: 0035_sms_entrants

Loi 2008-12 (docs/conformite.md): a member's consent per organisation and purpose (union membership, health data
of aid requests) with the notice version, collector, channel and withdrawal; the notice texts as shown; and one row
per staff read of a member's file.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0036_consentements"
down_revision: str | Sequence[str] | None = "0035_sms_entrants"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)
EN_VIGUEUR = sa.text("retire_le IS NULL")


def upgrade() -> None:
    op.create_table(
        "notice_information",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("finalite", sa.String(length=30), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("texte", sa.Text(), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice_information")),
        sa.UniqueConstraint("finalite", "version", name="uq_notice_information_finalite_version"),
    )
    op.create_table(
        "consentement",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("finalite", sa.String(length=30), nullable=False),
        sa.Column("notice_id", sa.Uuid(), nullable=False),
        sa.Column("notice_version", sa.Integer(), nullable=False),
        sa.Column("canal", sa.String(length=10), nullable=False),
        sa.Column("donne_le", DATE, nullable=False),
        sa.Column("recueilli_par", sa.String(length=511), nullable=False),
        sa.Column("recueilli_par_nom", sa.String(length=254), nullable=False),
        sa.Column("retire_le", DATE, nullable=True),
        sa.Column("retire_par", sa.String(length=511), nullable=True),
        sa.Column("retire_par_nom", sa.String(length=254), nullable=True),
        sa.Column("created_at", DATE, nullable=False),
        sa.Column("updated_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_consentement_membre_id_membre"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_consentement_organisation_id_organisation"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["notice_id"], ["notice_information.id"],
                                name=op.f("fk_consentement_notice_id_notice_information")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consentement")),
    )
    op.create_index("ix_consentement_membre", "consentement", ["membre_id", "donne_le"])
    op.create_index("uq_consentement_en_vigueur", "consentement", ["membre_id", "organisation_id", "finalite"],
                    unique=True, sqlite_where=EN_VIGUEUR, postgresql_where=EN_VIGUEUR)
    op.create_table(
        "acces_dossier",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=True),
        sa.Column("lecteur", sa.String(length=511), nullable=False),
        sa.Column("lecteur_nom", sa.String(length=254), nullable=False),
        sa.Column("lecteur_roles", sa.String(length=300), nullable=False),
        sa.Column("ecran", sa.String(length=200), nullable=False),
        sa.Column("lu_le", DATE, nullable=False),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_acces_dossier_membre_id_membre"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_acces_dossier_organisation_id_organisation"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_acces_dossier")),
    )
    op.create_index("ix_acces_dossier_membre_date", "acces_dossier", ["membre_id", "lu_le"])


def downgrade() -> None:
    op.drop_index("ix_acces_dossier_membre_date", table_name="acces_dossier")
    op.drop_table("acces_dossier")
    op.drop_index("uq_consentement_en_vigueur", table_name="consentement", sqlite_where=EN_VIGUEUR,
                  postgresql_where=EN_VIGUEUR)
    op.drop_index("ix_consentement_membre", table_name="consentement")
    op.drop_table("consentement")
    op.drop_table("notice_information")
