"""wave_releve, wave_releve_ligne, wave_rapprochement: Wave statements, their lines and their reconciliations

Revision ID: 0019_wave_rapprochement
Revises: 0018_recus_series_organisation

See wave/rapprochement_service.py. The lead re-chains at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_wave_rapprochement"
down_revision: str | Sequence[str] | None = "0018_recus_series_organisation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MONEY = sa.Numeric(precision=18, scale=2)


def _fk(table: str, column: str, referred: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [f"{referred}.id"], name=op.f(f"fk_{table}_{column}_{referred}"))


def upgrade() -> None:
    op.create_table(
        "wave_releve",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("compte_wave_id", sa.Uuid(), nullable=True),
        sa.Column("source", sa.String(length=10), nullable=False),
        sa.Column("nom_fichier", sa.String(length=255), nullable=True),
        sa.Column("empreinte", sa.String(length=64), nullable=False),
        sa.Column("date_debut", sa.Date(), nullable=True),
        sa.Column("date_fin", sa.Date(), nullable=True),
        sa.Column("solde_wave", MONEY, nullable=True),
        sa.Column("nombre_lignes", sa.Integer(), nullable=False),
        sa.Column("lignes_deja_connues", sa.Integer(), nullable=False),
        sa.Column("lignes_autres_organisations", sa.Integer(), nullable=False),
        sa.Column("importe_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("wave_releve", "organisation_id", "organisation"),
        _fk("wave_releve", "compte_wave_id", "compte_wave"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wave_releve")),
        sa.UniqueConstraint("organisation_id", "empreinte", name="uq_wave_releve_org_empreinte"),
    )
    op.create_index(op.f("ix_wave_releve_organisation_id"), "wave_releve", ["organisation_id"])
    op.create_table(
        "wave_releve_ligne",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("releve_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("transaction_id", sa.String(length=100), nullable=False),
        sa.Column("est_annulation", sa.Boolean(), nullable=False),
        sa.Column("horodatage", sa.DateTime(timezone=True), nullable=False),
        sa.Column("type_transaction", sa.String(length=40), nullable=True),
        sa.Column("montant", MONEY, nullable=False),
        sa.Column("frais", MONEY, nullable=False),
        sa.Column("solde", MONEY, nullable=True),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("contrepartie_nom", sa.String(length=200), nullable=True),
        sa.Column("contrepartie_mobile", sa.String(length=30), nullable=True),
        sa.Column("client_reference", sa.String(length=255), nullable=True),
        sa.Column("session_checkout_id", sa.String(length=100), nullable=True),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("paiement_id", sa.Uuid(), nullable=True),
        sa.Column("versement_id", sa.Uuid(), nullable=True),
        sa.Column("ecriture_frais_id", sa.Uuid(), nullable=True),
        _fk("wave_releve_ligne", "releve_id", "wave_releve"),
        _fk("wave_releve_ligne", "organisation_id", "organisation"),
        _fk("wave_releve_ligne", "paiement_id", "paiement"),
        _fk("wave_releve_ligne", "versement_id", "versement"),
        _fk("wave_releve_ligne", "ecriture_frais_id", "ecriture_comptable"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wave_releve_ligne")),
        sa.UniqueConstraint("organisation_id", "transaction_id", "est_annulation",
                            name="uq_wave_releve_ligne_transaction"),
    )
    for column in ("releve_id", "paiement_id", "versement_id"):
        op.create_index(op.f(f"ix_wave_releve_ligne_{column}"), "wave_releve_ligne", [column])
    op.create_table(
        "wave_rapprochement",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("releve_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("lignes_rapprochees", sa.Integer(), nullable=False),
        sa.Column("lignes_inconnues", sa.Integer(), nullable=False),
        sa.Column("lignes_montant_different", sa.Integer(), nullable=False),
        sa.Column("operations_absentes", sa.Integer(), nullable=False),
        sa.Column("frais_comptabilises", MONEY, nullable=False),
        sa.Column("solde_comptable", MONEY, nullable=False),
        sa.Column("solde_wave", MONEY, nullable=True),
        sa.Column("ecart", MONEY, nullable=True),
        sa.Column("compte_partage", sa.Boolean(), nullable=False),
        sa.Column("absentes", sa.JSON(), nullable=False),
        sa.Column("rapproche_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("wave_rapprochement", "releve_id", "wave_releve"),
        _fk("wave_rapprochement", "organisation_id", "organisation"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wave_rapprochement")),
    )
    op.create_index(op.f("ix_wave_rapprochement_releve_id"), "wave_rapprochement", ["releve_id"])


def downgrade() -> None:
    op.drop_table("wave_rapprochement")
    op.drop_table("wave_releve_ligne")
    op.drop_table("wave_releve")
