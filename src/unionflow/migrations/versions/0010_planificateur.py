"""planificateur: job leases and run history, background tasks, password-reset tokens; account e-mails in
the outbox

Revision ID: 0010_planificateur
Revises: 0009_maintenance
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_planificateur"
down_revision: str | Sequence[str] | None = "0009_maintenance"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "planification_job",
        sa.Column("nom", sa.String(length=60), nullable=False),
        sa.Column("prochaine_execution", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verrouillee_jusqua", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verrouillee_par", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("nom", name=op.f("pk_planification_job")),
    )
    op.create_table(
        "execution_job",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("job", sa.String(length=60), nullable=False),
        sa.Column("declenchement", sa.String(length=20), nullable=False),
        sa.Column("hote", sa.String(length=200), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("date_debut", sa.DateTime(timezone=True), nullable=False),
        sa.Column("date_fin", sa.DateTime(timezone=True), nullable=True),
        sa.Column("duree_ms", sa.Integer(), nullable=True),
        sa.Column("compteurs", sa.JSON(), nullable=False),
        sa.Column("message_erreur", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_execution_job")),
    )
    op.create_index("ix_execution_job_date_debut", "execution_job", ["date_debut"])
    op.create_index("ix_execution_job_job_date_debut", "execution_job", ["job", "date_debut"])
    op.create_table(
        "jeton_reinitialisation",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["utilisateur_local.id"], ondelete="CASCADE",
                                name=op.f("fk_jeton_reinitialisation_user_id_utilisateur_local")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jeton_reinitialisation")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_jeton_reinitialisation_token_hash")),
    )
    op.create_index("ix_jeton_reinitialisation_user_id", "jeton_reinitialisation", ["user_id"])
    op.create_table(
        "tache",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("progression", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("traites", sa.Integer(), nullable=False),
        sa.Column("parametres", sa.JSON(), nullable=False),
        sa.Column("resultat", sa.JSON(), nullable=True),
        sa.Column("lien_resultat", sa.String(length=300), nullable=True),
        sa.Column("message_erreur", sa.Text(), nullable=True),
        sa.Column("cree_par", sa.String(length=254), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=True),
        sa.Column("date_creation", sa.DateTime(timezone=True), nullable=False),
        sa.Column("date_debut", sa.DateTime(timezone=True), nullable=True),
        sa.Column("date_fin", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verrouillee_jusqua", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verrouillee_par", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"], ondelete="CASCADE",
                                name=op.f("fk_tache_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tache")),
    )
    op.create_index("ix_tache_statut_date_creation", "tache", ["statut", "date_creation"])
    # Account e-mails (password reset) go through the outbox for accounts that have no member record.
    with op.batch_alter_table("notification") as batch:
        batch.alter_column("membre_id", existing_type=sa.Uuid(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM notification WHERE membre_id IS NULL")
    with op.batch_alter_table("notification") as batch:
        batch.alter_column("membre_id", existing_type=sa.Uuid(), nullable=False)
    op.drop_index("ix_tache_statut_date_creation", table_name="tache")
    op.drop_table("tache")
    op.drop_index("ix_jeton_reinitialisation_user_id", table_name="jeton_reinitialisation")
    op.drop_table("jeton_reinitialisation")
    op.drop_index("ix_execution_job_job_date_debut", table_name="execution_job")
    op.drop_index("ix_execution_job_date_debut", table_name="execution_job")
    op.drop_table("execution_job")
    op.drop_table("planification_job")
