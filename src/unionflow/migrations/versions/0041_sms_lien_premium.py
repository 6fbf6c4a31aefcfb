"""premium SMS: the gateway's link id an SMS answer sends back (Africa's Talking ``linkId``)

Revision ID: 0041_sms_lien_premium
Revises: 0040_referentiel_comptable

An SMS a member sent to a premium (on-demand) short code arrives with Africa's Talking's ``linkId``; the answer
must carry it back, so the outbox row of the answer keeps it until it is sent.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0041_sms_lien_premium"
down_revision: str | Sequence[str] | None = "0040_referentiel_comptable"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("notification") as batch:
        batch.add_column(sa.Column("lien_premium", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("notification") as batch:
        batch.drop_column("lien_premium")
