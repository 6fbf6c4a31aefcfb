"""journaux: stored system logs (journal_systeme) and the request id of audit entries

Revision ID: 0011_journaux
Revises: 0010_planificateur
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_journaux"
down_revision: str | Sequence[str] | None = "0010_planificateur"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "journal_systeme",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("horodatage", sa.DateTime(timezone=True), nullable=False),
        sa.Column("niveau", sa.String(length=10), nullable=False),
        sa.Column("logger", sa.String(length=200), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("request_id", sa.String(length=128), nullable=True),
        sa.Column("utilisateur", sa.String(length=255), nullable=True),
        sa.Column("organisation_id", sa.String(length=36), nullable=True),
        sa.Column("methode", sa.String(length=10), nullable=True),
        sa.Column("route", sa.String(length=300), nullable=True),
        sa.Column("statut", sa.Integer(), nullable=True),
        sa.Column("duree_ms", sa.Float(), nullable=True),
        sa.Column("processus", sa.Integer(), nullable=True),
        sa.Column("contexte", sa.JSON(), nullable=True),
        sa.Column("exception", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_systeme")),
    )
    op.create_index("ix_journal_systeme_horodatage", "journal_systeme", ["horodatage"])
    op.create_index("ix_journal_systeme_niveau_horodatage", "journal_systeme", ["niveau", "horodatage"])
    op.create_index("ix_journal_systeme_request_id", "journal_systeme", ["request_id"])
    op.create_index("ix_journal_systeme_logger_horodatage", "journal_systeme", ["logger", "horodatage"])
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("request_id", sa.String(length=128), nullable=True))
        batch.create_index("ix_audit_log_request_id", ["request_id"])


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_index("ix_audit_log_request_id")
        batch.drop_column("request_id")
    op.drop_table("journal_systeme")
