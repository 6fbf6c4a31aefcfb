"""quatreyeux: requests to undo money (cancel/refund a payment, cancel a payout, reverse an entry)

Revision ID: 0020_quatreyeux_annulations
Revises: 0019_wave_rapprochement

undoing money is requested by one person and approved by a second (annulations/service.py).
The lead re-chains ``down_revision`` at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_quatreyeux_annulations"
down_revision: str | Sequence[str] | None = "0019_wave_rapprochement"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

T = "demande_annulation"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_annulation", sa.String(length=30), nullable=False),
        sa.Column("paiement_id", sa.Uuid(), nullable=True),
        sa.Column("versement_id", sa.Uuid(), nullable=True),
        sa.Column("ecriture_id", sa.Uuid(), nullable=True),
        sa.Column("membre_id", sa.Uuid(), nullable=True),
        sa.Column("reference", sa.String(length=40), nullable=False),
        sa.Column("montant", sa.Numeric(18, 2), nullable=False),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("motif", sa.String(length=500), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=511), nullable=False),
        sa.Column("date_demande", sa.DateTime(timezone=True), nullable=False),
        sa.Column("approbation_id", sa.Uuid(), nullable=True),
        sa.Column("decide_par", sa.String(length=254), nullable=True),
        sa.Column("decide_par_sub", sa.String(length=511), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=True),
        sa.Column("numero_remboursement", sa.String(length=40), nullable=True),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_demande_annulation_organisation_id_organisation")),
        sa.ForeignKeyConstraint(["paiement_id"], ["paiement.id"], name=op.f("fk_demande_annulation_paiement_id_paiement")),
        sa.ForeignKeyConstraint(["versement_id"], ["versement.id"],
                                name=op.f("fk_demande_annulation_versement_id_versement")),
        sa.ForeignKeyConstraint(["ecriture_id"], ["ecriture_comptable.id"],
                                name=op.f("fk_demande_annulation_ecriture_id_ecriture_comptable")),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_demande_annulation_membre_id_membre")),
        sa.ForeignKeyConstraint(["approbation_id"], ["approbation.id"],
                                name=op.f("fk_demande_annulation_approbation_id_approbation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demande_annulation")),
        sa.UniqueConstraint("numero_remboursement", name=op.f("uq_demande_annulation_numero_remboursement")),
    )
    for column in ("organisation_id", "paiement_id", "versement_id", "ecriture_id"):
        op.create_index(op.f(f"ix_{T}_{column}"), T, [column])
    op.create_index("ix_demande_annulation_statut", T, ["organisation_id", "statut"])


def downgrade() -> None:
    op.drop_index("ix_demande_annulation_statut", table_name=T)
    for column in ("organisation_id", "paiement_id", "versement_id", "ecriture_id"):
        op.drop_index(op.f(f"ix_{T}_{column}"), table_name=T)
    op.drop_table(T)
