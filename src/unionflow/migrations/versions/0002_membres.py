"""membres: indexes behind audit search filters and statistics (severity, action type, user, IP)

Revision ID: 0002_membres
Revises: 0001_core
Create Date: 2026-11-21 05:47:31.609018
"""
from collections.abc import Sequence

from alembic import op

revision: str = '0002_membres'
down_revision: str | Sequence[str] | None = '0001_core'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index('ix_audit_log_ip_date', ['ip_address', 'date_heure'], unique=False)
        batch_op.create_index('ix_audit_log_severite_date', ['severite', 'date_heure'], unique=False)
        batch_op.create_index('ix_audit_log_type_action_date', ['type_action', 'date_heure'], unique=False)
        batch_op.create_index('ix_audit_log_utilisateur_date', ['utilisateur', 'date_heure'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_log_utilisateur_date')
        batch_op.drop_index('ix_audit_log_type_action_date')
        batch_op.drop_index('ix_audit_log_severite_date')
        batch_op.drop_index('ix_audit_log_ip_date')
