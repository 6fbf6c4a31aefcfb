"""register of donations and bequests (hash-chained), earmarked funds and their movements

Revision ID: 0038_registre_dons
Revises: 0037_effacement

One line per donation, gap-free per organisation and sealed by SHA-256 over the previous line's hash; earmarked
funds (fonds dédiés) fed by donations given for a purpose and the uses assigned to them.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0038_registre_dons"
down_revision: str | Sequence[str] | None = "0037_effacement"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)
MONTANT = sa.Numeric(18, 2)


def _fk(table: str, colonne: str, cible: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([colonne], [f"{cible}.id"], name=op.f(f"fk_{table}_{colonne}_{cible}"))


def upgrade() -> None:
    op.create_table(
        "fonds_dedie",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("objet", sa.String(length=300), nullable=False),
        sa.Column("donateur", sa.String(length=200), nullable=True),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("cree_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        _fk("fonds_dedie", "organisation_id", "organisation"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fonds_dedie")),
        sa.UniqueConstraint("organisation_id", "objet", name="uq_fonds_dedie_org_objet"),
    )
    op.create_index(op.f("ix_fonds_dedie_organisation_id"), "fonds_dedie", ["organisation_id"])
    op.create_table(
        "ligne_registre_don",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("date_don", DATE, nullable=False),
        sa.Column("type_donateur", sa.String(length=20), nullable=False),
        sa.Column("donateur_nom", sa.String(length=200), nullable=True),
        sa.Column("donateur_telephone", sa.String(length=30), nullable=True),
        sa.Column("donateur_piece_identite", sa.String(length=60), nullable=True),
        sa.Column("donateur_rccm", sa.String(length=60), nullable=True),
        sa.Column("donateur_ninea", sa.String(length=30), nullable=True),
        sa.Column("membre_id", sa.Uuid(), nullable=True),
        sa.Column("montant", MONTANT, nullable=False),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("forme", sa.String(length=20), nullable=False),
        sa.Column("description_nature", sa.Text(), nullable=True),
        sa.Column("base_evaluation", sa.String(length=500), nullable=True),
        sa.Column("affectation", sa.String(length=300), nullable=True),
        sa.Column("fonds_id", sa.Uuid(), nullable=True),
        sa.Column("paiement_id", sa.Uuid(), nullable=True),
        sa.Column("reference", sa.String(length=100), nullable=False),
        sa.Column("seuil_lcbft_atteint", sa.Boolean(), nullable=False),
        sa.Column("enregistre_par", sa.String(length=254), nullable=False),
        sa.Column("hash_precedent", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        _fk("ligne_registre_don", "organisation_id", "organisation"),
        _fk("ligne_registre_don", "membre_id", "membre"),
        _fk("ligne_registre_don", "fonds_id", "fonds_dedie"),
        _fk("ligne_registre_don", "paiement_id", "paiement"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ligne_registre_don")),
        sa.UniqueConstraint("organisation_id", "numero", name="uq_ligne_registre_don_org_numero"),
    )
    op.create_index("ix_ligne_registre_don_org_date", "ligne_registre_don", ["organisation_id", "date_don"])
    op.create_table(
        "mouvement_fonds_dedie",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("fonds_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_mouvement", sa.String(length=10), nullable=False),
        sa.Column("date_mouvement", DATE, nullable=False),
        sa.Column("montant", MONTANT, nullable=False),
        sa.Column("libelle", sa.String(length=300), nullable=False),
        sa.Column("reference", sa.String(length=100), nullable=False),
        sa.Column("ligne_don_id", sa.Uuid(), nullable=True),
        sa.Column("enregistre_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", DATE, nullable=False),
        _fk("mouvement_fonds_dedie", "fonds_id", "fonds_dedie"),
        _fk("mouvement_fonds_dedie", "organisation_id", "organisation"),
        _fk("mouvement_fonds_dedie", "ligne_don_id", "ligne_registre_don"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mouvement_fonds_dedie")),
    )
    op.create_index("ix_mouvement_fonds_dedie_fonds_date", "mouvement_fonds_dedie", ["fonds_id", "date_mouvement"])


def downgrade() -> None:
    op.drop_index("ix_mouvement_fonds_dedie_fonds_date", table_name="mouvement_fonds_dedie")
    op.drop_table("mouvement_fonds_dedie")
    op.drop_index("ix_ligne_registre_don_org_date", table_name="ligne_registre_don")
    op.drop_table("ligne_registre_don")
    op.drop_index(op.f("ix_fonds_dedie_organisation_id"), table_name="fonds_dedie")
    op.drop_table("fonds_dedie")
