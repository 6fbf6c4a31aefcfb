"""soldes_mensuels: ledger balances per organisation, account, journal and month, kept by triggers

Revision ID: 0047_soldes_mensuels
Revises: 0046_synthese_membres

A federation's consolidation and its statements summed every entry line of every organisation (4 M lines at
national scale: 4 s). They read this summary instead, and the entry lines of at most two months cut by the
period's bounds (comptabilite/etats/soldes_repository.py). Triggers on ``ligne_ecriture`` and
``ecriture_comptable`` append signed deltas, as migration 0013 does for dues (comptabilite/soldes_sql.py); a
later migration that rebuilds either table in SQLite batch mode drops these triggers with the old table and must
create them again (tests/comptabilite/etats/test_soldes_mensuels.py checks them at head). The backfill is one INSERT … SELECT … GROUP BY
under a SHARE lock on both tables (writers of entries wait for it; reads go on).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from unionflow.comptabilite.soldes_sql import (
    DELTA,
    PG_FUNCTIONS,
    PG_ROW_FUNCTION,
    PG_ROW_TRIGGER,
    PG_TRIGGERS,
    SQLITE_TRIGGERS,
    SYNTHESE,
    rebuild,
)

revision: str = "0047_soldes_mensuels"
down_revision: str | Sequence[str] | None = "0046_synthese_membres"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _table(name: str) -> None:
    # Identity ids (SQLite: the rowid alias); no foreign keys (the triggers write it; it must block no delete).
    op.create_table(
        name,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("compte_id", sa.Uuid(), nullable=False),
        sa.Column("journal_id", sa.Uuid(), nullable=False),
        sa.Column("mois", sa.Date(), nullable=False),
        sa.Column("nombre", sa.BigInteger(), nullable=False),
        sa.Column("debit", sa.Numeric(precision=20, scale=2), nullable=False),
        sa.Column("credit", sa.Numeric(precision=20, scale=2), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
    )


def upgrade() -> None:
    _table(SYNTHESE)
    op.create_index("uq_solde_compte_mois_cle", SYNTHESE, ["organisation_id", "compte_id", "journal_id", "mois"],
                    unique=True)
    _table(DELTA)
    op.create_index("ix_solde_compte_mois_delta_organisation", DELTA, ["organisation_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for function, body in [*PG_FUNCTIONS.items(), PG_ROW_FUNCTION]:
            returned = "OLD" if function == PG_ROW_FUNCTION[0] else "NULL"
            op.execute(f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} "
                       f"RETURN {returned}; END $$")
        for trigger, table, event, referencing, function in PG_TRIGGERS:
            op.execute(f"CREATE TRIGGER {trigger} {event} ON {table} {referencing} FOR EACH STATEMENT "
                       f"EXECUTE FUNCTION solde_compte_mois_{function}()")
        op.execute(f"CREATE TRIGGER {PG_ROW_TRIGGER} BEFORE DELETE ON ecriture_comptable FOR EACH ROW "
                   f"EXECUTE FUNCTION {PG_ROW_FUNCTION[0]}()")
    else:
        for trigger, body in SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {trigger} {body}")
    for statement in rebuild(dialect):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for trigger, table, *_ in PG_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
        op.execute(f"DROP TRIGGER IF EXISTS {PG_ROW_TRIGGER} ON ecriture_comptable")
        for function in [*PG_FUNCTIONS, PG_ROW_FUNCTION[0]]:
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.drop_table(DELTA)
    op.drop_table(SYNTHESE)
