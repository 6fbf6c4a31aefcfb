"""merge area branches

Revision ID: 0004_merge
Revises: 0002_monitoring, 0003_finance, 0003_notifications, 0003_tickets
Create Date: 2026-11-21 06:25:04.818397
"""
from collections.abc import Sequence

revision: str = '0004_merge'
down_revision: str | Sequence[str] | None = ('0002_monitoring', '0003_finance', '0003_notifications', '0003_tickets')
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
