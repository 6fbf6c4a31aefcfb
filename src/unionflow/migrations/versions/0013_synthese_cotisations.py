"""synthese_cotisations: dues summary per bucket, kept exact by triggers through append-only deltas

Revision ID: 0013_synthese_cotisations
Revises: 0012_actions_audit

Statistics of dues read ``cotisation_synthese`` plus the pending ``cotisation_synthese_delta`` rows instead of
aggregating every dues (docs/architecture.md, "Statistics of dues"). Triggers on ``cotisation`` append the deltas
of every write, whatever its path (services, imports, jobs, raw SQL): PostgreSQL statement-level triggers with
transition tables (one grouped INSERT per statement, so a batch of 5 000 dues marked EN_RETARD adds a handful of
rows), SQLite row triggers. The backfill is the rebuild of ``cotisations/synthese_sql.py``: one INSERT … SELECT
… GROUP BY. A later migration that rebuilds ``cotisation`` in SQLite batch mode drops these triggers with the old
table and must create them again (tests/cotisations/test_synthese.py checks they exist at head).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from unionflow.cotisations.synthese_sql import DELTA, FIGURES, KEY, SYNTHESE, rebuild

revision: str = "0013_synthese_cotisations"
down_revision: str | Sequence[str] | None = "0012_actions_audit"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUMS = "sum(montant_du), sum(montant_paye)"
PG_FUNCTIONS = {
    "cotisation_synthese_inserer": f"""
        INSERT INTO {DELTA} ({KEY}, {FIGURES})
        SELECT {KEY}, count(*), {_SUMS} FROM nouvelles GROUP BY {KEY};""",
    "cotisation_synthese_supprimer": f"""
        INSERT INTO {DELTA} ({KEY}, {FIGURES})
        SELECT {KEY}, -count(*), -sum(montant_du), -sum(montant_paye) FROM anciennes GROUP BY {KEY};""",
    # Old rows out, new rows in, netted per bucket: an update that moves no figure (libellé, updated_at, ...)
    # appends nothing.
    "cotisation_synthese_modifier": f"""
        INSERT INTO {DELTA} ({KEY}, {FIGURES})
        SELECT {KEY}, sum(n), {_SUMS} FROM (
            SELECT {KEY}, 1 AS n, montant_du, montant_paye FROM nouvelles
            UNION ALL
            SELECT {KEY}, -1, -montant_du, -montant_paye FROM anciennes) AS d
        GROUP BY {KEY} HAVING sum(n) <> 0 OR sum(montant_du) <> 0 OR sum(montant_paye) <> 0;""",
    "cotisation_synthese_vider": f"""
        DELETE FROM {DELTA};
        DELETE FROM {SYNTHESE};""",
}
PG_TRIGGERS = [
    ("cotisation_synthese_ai", "AFTER INSERT", "REFERENCING NEW TABLE AS nouvelles", "inserer"),
    ("cotisation_synthese_au", "AFTER UPDATE", "REFERENCING OLD TABLE AS anciennes NEW TABLE AS nouvelles",
     "modifier"),
    ("cotisation_synthese_ad", "AFTER DELETE", "REFERENCING OLD TABLE AS anciennes", "supprimer"),
    ("cotisation_synthese_at", "AFTER TRUNCATE", "", "vider"),
]

_NEW = ", ".join(f"NEW.{c.strip()}" for c in KEY.split(","))
_OLD = ", ".join(f"OLD.{c.strip()}" for c in KEY.split(","))
_PLUS = f"{_NEW}, 1, NEW.montant_du, NEW.montant_paye"
_MINUS = f"{_OLD}, -1, -OLD.montant_du, -OLD.montant_paye"
_MOVED = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in (*(k.strip() for k in KEY.split(",")),
                                                         "montant_du", "montant_paye"))
SQLITE_TRIGGERS = {
    "cotisation_synthese_ai": f"AFTER INSERT ON cotisation BEGIN "
                              f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) VALUES ({_PLUS}); END",
    "cotisation_synthese_ad": f"AFTER DELETE ON cotisation BEGIN "
                              f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) VALUES ({_MINUS}); END",
    "cotisation_synthese_au": f"AFTER UPDATE OF {KEY}, montant_du, montant_paye ON cotisation WHEN {_MOVED} BEGIN "
                              f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) VALUES ({_MINUS}), ({_PLUS}); END",
}


def _table(name: str) -> None:
    # Identity ids (SQLite: the rowid alias). No foreign key to organisation: a bucket outlives nothing, and
    # deltas of dues deleted with their organisation must not block that delete.
    op.create_table(
        name,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_cotisation", sa.String(length=30), nullable=False),
        sa.Column("statut", sa.String(length=25), nullable=False),
        sa.Column("annee", sa.Integer(), nullable=False),
        sa.Column("mois", sa.Integer(), nullable=True),
        sa.Column("date_echeance", sa.Date(), nullable=False),
        sa.Column("nombre", sa.BigInteger(), nullable=False),
        sa.Column("montant_du", sa.Numeric(precision=20, scale=2), nullable=False),
        sa.Column("montant_paye", sa.Numeric(precision=20, scale=2), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
    )


def upgrade() -> None:
    _table(SYNTHESE)
    op.create_index("uq_cotisation_synthese_cle", SYNTHESE,
                    ["organisation_id", "type_cotisation", "statut", "annee", sa.text("coalesce(mois, 0)"),
                     "date_echeance"], unique=True)
    _table(DELTA)
    op.create_index("ix_cotisation_synthese_delta_organisation", DELTA, ["organisation_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for function, body in PG_FUNCTIONS.items():
            op.execute(f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} "
                       "RETURN NULL; END $$")
        for trigger, event, referencing, function in PG_TRIGGERS:
            op.execute(f"CREATE TRIGGER {trigger} {event} ON cotisation {referencing} FOR EACH STATEMENT "
                       f"EXECUTE FUNCTION cotisation_synthese_{function}()")
    else:
        for trigger, body in SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {trigger} {body}")
    for statement in rebuild(dialect):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for trigger, *_ in PG_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON cotisation")
        for function in PG_FUNCTIONS:
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.drop_table(DELTA)
    op.drop_table(SYNTHESE)
