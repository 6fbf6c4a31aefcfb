"""erasure of a member's identity (Loi 2008-12): when it was pseudonymised

Revision ID: 0037_effacement
Revises: 0036_consentements

``membre.date_effacement``: set when the member's identity was pseudonymised (a decided EFFACEMENT request or the
retention job); the accounting rows that name him are kept as they are.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0037_effacement"
down_revision: str | Sequence[str] | None = "0036_consentements"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("membre", sa.Column("date_effacement", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("membre") as batch:
        batch.drop_column("date_effacement")
