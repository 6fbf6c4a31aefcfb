"""reference_paiement: a payment code per dues (anyone may pay it), the Wave session's own client reference and
payer's phone, the message of a Wave statement line

Revision ID: 0034_reference_paiement
Revises: 0033_pin_ussd

Every existing dues receives its code here: nine random digits (the first not 0) and two ISO 7064 MOD 97-10
check digits, unique (core/code_paiement.py; written out below, migrations import no application code). Columns
are added without a table rebuild (no batch mode): SQLite keeps cotisation's triggers.
"""
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0034_reference_paiement"
down_revision: str | Sequence[str] | None = "0033_pin_ussd"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOT = 1000


def _code() -> str:
    corps = str(secrets.randbelow(900_000_000) + 100_000_000)
    return corps + f"{98 - int(corps) * 100 % 97:02d}"


def upgrade() -> None:
    op.add_column("cotisation", sa.Column("code_paiement", sa.String(length=11), nullable=True))
    op.add_column("wave_checkout", sa.Column("reference_client", sa.String(length=100), nullable=True))
    op.add_column("wave_checkout", sa.Column("telephone_payeur", sa.String(length=30), nullable=True))
    op.add_column("wave_releve_ligne", sa.Column("message", sa.String(length=255), nullable=True))
    bind = op.get_bind()
    table = sa.table("cotisation", sa.column("id", sa.Uuid()), sa.column("code_paiement", sa.String()))
    pris: set[str] = set()
    while True:
        ids = [r[0] for r in bind.execute(sa.select(table.c.id).where(table.c.code_paiement.is_(None))
                                          .limit(LOT)).all()]
        if not ids:
            break
        valeurs = []
        for cotisation_id in ids:
            code = _code()
            while code in pris:
                code = _code()
            pris.add(code)
            valeurs.append({"cid": cotisation_id, "code": code})
        bind.execute(table.update().where(table.c.id == sa.bindparam("cid"))
                     .values(code_paiement=sa.bindparam("code")), valeurs)
    op.create_index("ix_cotisation_code_paiement", "cotisation", ["code_paiement"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_cotisation_code_paiement", table_name="cotisation")
    op.drop_column("wave_releve_ligne", "message")
    op.drop_column("wave_checkout", "telephone_payeur")
    op.drop_column("wave_checkout", "reference_client")
    op.drop_column("cotisation", "code_paiement")
