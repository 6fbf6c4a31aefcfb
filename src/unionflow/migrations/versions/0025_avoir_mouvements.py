"""avoir: the ledger of members' credit (advances, overpayments, applications, reversals); per-organisation settings

Revision ID: 0025_avoir_mouvements
Revises: 0024_quote_part_federation

one credit account per member and organisation, a sum of signed movements. Existing valid
payments with an unallocated amount get their CREATION movement, so the ledger starts equal to the
payments' ``montant_non_affecte`` and the 4191 balance. ``configuration_organisation``: an organisation's own value
of a setting that may differ per organisation (``cotisations.avoir.imputation_automatique``). The lead re-chains
``down_revision`` at merge.
"""
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0025_avoir_mouvements"
down_revision: str | Sequence[str] | None = "0024_quote_part_federation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

T = "mouvement_avoir"


def upgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("paiement_id", sa.Uuid(), nullable=False),
        sa.Column("type_mouvement", sa.String(length=20), nullable=False),
        sa.Column("montant", sa.Numeric(18, 2), nullable=False),
        sa.Column("cotisation_id", sa.Uuid(), nullable=True),
        sa.Column("adhesion_id", sa.Uuid(), nullable=True),
        sa.Column("ecriture_id", sa.Uuid(), nullable=True),
        sa.Column("libelle", sa.String(length=300), nullable=False),
        sa.Column("cree_par", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_mouvement_avoir_membre_id_membre")),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_mouvement_avoir_organisation_id_organisation")),
        sa.ForeignKeyConstraint(["paiement_id"], ["paiement.id"], name=op.f("fk_mouvement_avoir_paiement_id_paiement")),
        sa.ForeignKeyConstraint(["cotisation_id"], ["cotisation.id"],
                                name=op.f("fk_mouvement_avoir_cotisation_id_cotisation")),
        sa.ForeignKeyConstraint(["adhesion_id"], ["adhesion.id"], name=op.f("fk_mouvement_avoir_adhesion_id_adhesion")),
        sa.ForeignKeyConstraint(["ecriture_id"], ["ecriture_comptable.id"],
                                name=op.f("fk_mouvement_avoir_ecriture_id_ecriture_comptable")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mouvement_avoir")),
    )
    op.create_index(op.f("ix_mouvement_avoir_paiement_id"), T, ["paiement_id"])
    op.create_index("ix_mouvement_avoir_membre_org", T, ["membre_id", "organisation_id", "created_at"])
    _reprendre_credits()
    op.create_table(
        "configuration_organisation",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("cle", sa.String(length=100), nullable=False),
        sa.Column("valeur", sa.Text(), nullable=False),
        sa.Column("type_valeur", sa.String(length=10), nullable=False),
        sa.Column("modifie_par", sa.String(length=254), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_configuration_organisation_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_configuration_organisation")),
        sa.UniqueConstraint("organisation_id", "cle", name="uq_configuration_organisation_cle"),
    )


def _reprendre_credits() -> None:
    """The credit already held (a late Wave confirmation): one CREATION movement per payment."""
    paiement = sa.table("paiement", sa.column("id", sa.Uuid()), sa.column("membre_id", sa.Uuid()),
                        sa.column("organisation_id", sa.Uuid()), sa.column("montant_non_affecte", sa.Numeric(18, 2)),
                        sa.column("numero_recu", sa.String()), sa.column("statut", sa.String()))
    rows = op.get_bind().execute(
        sa.select(paiement.c.id, paiement.c.membre_id, paiement.c.organisation_id, paiement.c.montant_non_affecte,
                  paiement.c.numero_recu)
        .where(paiement.c.statut == "VALIDE", paiement.c.montant_non_affecte > 0)).all()
    if not rows:
        return
    table = sa.table(T, sa.column("id", sa.Uuid()), sa.column("membre_id", sa.Uuid()),
                     sa.column("organisation_id", sa.Uuid()), sa.column("paiement_id", sa.Uuid()),
                     sa.column("type_mouvement", sa.String()), sa.column("montant", sa.Numeric(18, 2)),
                     sa.column("libelle", sa.String()), sa.column("cree_par", sa.String()),
                     sa.column("created_at", sa.DateTime(timezone=True)))
    now = datetime.now(UTC)
    op.bulk_insert(table, [
        {"id": uuid.uuid4(), "membre_id": r[1], "organisation_id": r[2], "paiement_id": r[0],
         "type_mouvement": "CREATION", "montant": r[3], "libelle": f"Avoir créé par le reçu {r[4]} (reprise)",
         "cree_par": "migration", "created_at": now} for r in rows])


def downgrade() -> None:
    op.drop_table("configuration_organisation")
    op.drop_index("ix_mouvement_avoir_membre_org", table_name=T)
    op.drop_index(op.f("ix_mouvement_avoir_paiement_id"), table_name=T)
    op.drop_table(T)
