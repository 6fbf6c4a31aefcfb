"""tresorier: receipt verification keys, organisation logo, accounting lock date and closed fiscal years

Revision ID: 0006_tresorier
Revises: 0005_resultat_cache
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_tresorier"
down_revision: str | Sequence[str] | None = "0005_resultat_cache"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "verrou_comptable",
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("date_verrouillage", sa.Date(), nullable=False),
        sa.Column("modifie_par", sa.String(length=254), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name="fk_verrou_comptable_organisation_id_organisation"),
        sa.PrimaryKeyConstraint("organisation_id", name="pk_verrou_comptable"),
    )
    op.create_table(
        "exercice_comptable",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("annee", sa.Integer(), nullable=False),
        sa.Column("resultat", sa.Numeric(precision=18, scale=2), nullable=False),
        sa.Column("ecriture_cloture_id", sa.Uuid(), nullable=True),
        sa.Column("cloture_par", sa.String(length=254), nullable=True),
        sa.Column("date_cloture", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name="fk_exercice_comptable_organisation_id_organisation"),
        sa.ForeignKeyConstraint(["ecriture_cloture_id"], ["ecriture_comptable.id"],
                                name="fk_exercice_comptable_ecriture_cloture_id_ecriture_comptable"),
        sa.PrimaryKeyConstraint("id", name="pk_exercice_comptable"),
        sa.UniqueConstraint("organisation_id", "annee", name="uq_exercice_comptable_organisation_id"),
    )
    op.add_column("organisation", sa.Column("logo_document_id", sa.Uuid(), nullable=True))
    op.add_column("paiement", sa.Column("cle_verification", sa.String(length=32), nullable=True))
    # Receipts already handed out get a key too, so their verification link works once reprinted.
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE paiement SET cle_verification = substr(md5(random()::text || id::text), 1, 16)")
    else:
        op.execute("UPDATE paiement SET cle_verification = lower(hex(randomblob(8)))")
    with op.batch_alter_table("paiement") as batch:
        batch.alter_column("cle_verification", existing_type=sa.String(length=32), nullable=False)


def downgrade() -> None:
    op.drop_table("exercice_comptable")
    op.drop_table("verrou_comptable")
    with op.batch_alter_table("paiement") as batch:
        batch.drop_column("cle_verification")
    with op.batch_alter_table("organisation") as batch:
        batch.drop_column("logo_document_id")
