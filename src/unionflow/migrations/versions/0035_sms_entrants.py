"""two-way SMS: inbound messages, STOP numbers, one-time PIN codes, delivery reports on the outbox

Revision ID: 0035_sms_entrants
Revises: 0033_pin_ussd

Inbound SMS keywords (SOLDE, RECU, AIDE, STOP), the numbers that answered STOP, the one-time SMS code that sets a
USSD PIN, and on each outbox row the gateway's message id and its last delivery report.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0035_sms_entrants"
down_revision: str | Sequence[str] | None = "0034_reference_paiement"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DATE = sa.DateTime(timezone=True)


def _horodatage() -> list[sa.Column]:
    return [sa.Column("created_at", DATE, nullable=False), sa.Column("updated_at", DATE, nullable=False)]


def upgrade() -> None:
    op.create_table(
        "sms_entrant",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("passerelle", sa.String(length=20), nullable=False),
        sa.Column("id_passerelle", sa.String(length=100), nullable=False),
        sa.Column("expediteur", sa.String(length=20), nullable=False),
        sa.Column("destinataire", sa.String(length=30), nullable=True),
        sa.Column("texte", sa.String(length=1000), nullable=False),
        sa.Column("mot_cle", sa.String(length=10), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=True),
        *_horodatage(),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_sms_entrant_membre_id_membre"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sms_entrant")),
        sa.UniqueConstraint("passerelle", "id_passerelle", name="uq_sms_entrant_passerelle_id"),
    )
    op.create_index(op.f("ix_sms_entrant_expediteur"), "sms_entrant", ["expediteur"])
    op.create_table(
        "opposition_sms",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("telephone", sa.String(length=20), nullable=False),
        *_horodatage(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_opposition_sms")),
        sa.UniqueConstraint("telephone", name=op.f("uq_opposition_sms_telephone")),
    )
    op.create_table(
        "code_pin_sms",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("code_hash", sa.String(length=255), nullable=False),
        sa.Column("expire_le", DATE, nullable=False),
        sa.Column("essais", sa.Integer(), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        *_horodatage(),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_code_pin_sms_membre_id_membre"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_code_pin_sms")),
        sa.UniqueConstraint("membre_id", name=op.f("uq_code_pin_sms_membre_id")),
    )
    with op.batch_alter_table("notification") as batch:
        batch.add_column(sa.Column("reference_passerelle", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("accuse_statut", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("accuse_detail", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("accuse_le", DATE, nullable=True))
        batch.create_index(batch.f("ix_notification_reference_passerelle"), ["reference_passerelle"])


def downgrade() -> None:
    with op.batch_alter_table("notification") as batch:
        batch.drop_index(batch.f("ix_notification_reference_passerelle"))
        for column in ("accuse_le", "accuse_detail", "accuse_statut", "reference_passerelle"):
            batch.drop_column(column)
    op.drop_table("code_pin_sms")
    op.drop_table("opposition_sms")
    op.drop_index(op.f("ix_sms_entrant_expediteur"), table_name="sms_entrant")
    op.drop_table("sms_entrant")
