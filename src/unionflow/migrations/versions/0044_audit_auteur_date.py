"""audit: index on the author (subject, issuer) and date, for the replica's read-your-writes check

Revision ID: 0044_audit_auteur_date
Revises: 0043_recepisse_traitement

Before routing a heavy read to the replica, core/replica.py reads on the primary the caller's audit rows of the
last minutes (``utilisateur_id``, ``utilisateur_emetteur``, ``date_heure``): one index range scan per such read
instead of a scan of the audit log.
"""
from collections.abc import Sequence

from alembic import op

revision: str = "0044_audit_auteur_date"
down_revision: str | Sequence[str] | None = "0043_recepisse_traitement"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_audit_log_auteur_date", "audit_log", ["utilisateur_id", "utilisateur_emetteur", "date_heure"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_auteur_date", table_name="audit_log")
