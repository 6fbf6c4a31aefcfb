"""pin_ussd: a member's USSD PIN (hashed), failed attempts and lock

Revision ID: 0033_pin_ussd
Revises: 0032_methode_declaree

USSD self-service: a PIN before any figure, three wrong PINs lock USSD for the member until the
treasury resets it. One row per member at most.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0033_pin_ussd"
down_revision: str | Sequence[str] | None = "0032_methode_declaree"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "pin_ussd",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("pin_hash", sa.String(length=255), nullable=True),
        sa.Column("echecs", sa.Integer(), nullable=False),
        sa.Column("verrouille", sa.Boolean(), nullable=False),
        sa.Column("verrouille_le", DATE, nullable=True),
        sa.Column("created_at", DATE, nullable=False),
        sa.Column("updated_at", DATE, nullable=False),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_pin_ussd_membre_id_membre"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pin_ussd")),
        sa.UniqueConstraint("membre_id", name=op.f("uq_pin_ussd_membre_id")),
    )


def downgrade() -> None:
    op.drop_table("pin_ussd")
