"""federation_quote_part: a payout may be a quote-part paid to the payer's federation

Revision ID: 0024_quote_part_federation
Revises: 0023_comptes_produits

the share a member organisation pays its federation is one payout booked on both sides. The payout
names the organisation receiving it and keeps the receipt number given in that organisation's series.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_quote_part_federation"
down_revision: str | Sequence[str] | None = "0023_comptes_produits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("versement") as batch:
        batch.add_column(sa.Column("organisation_destinataire_id", sa.Uuid(), nullable=True))
        batch.add_column(sa.Column("numero_recu_destinataire", sa.String(40), nullable=True))
        batch.create_foreign_key("fk_versement_organisation_destinataire_id_organisation", "organisation",
                                 ["organisation_destinataire_id"], ["id"])
        batch.create_index("ix_versement_organisation_destinataire_id", ["organisation_destinataire_id"])


def downgrade() -> None:
    with op.batch_alter_table("versement") as batch:
        batch.drop_index("ix_versement_organisation_destinataire_id")
        batch.drop_constraint("fk_versement_organisation_destinataire_id_organisation", type_="foreignkey")
        batch.drop_column("numero_recu_destinataire")
        batch.drop_column("organisation_destinataire_id")
