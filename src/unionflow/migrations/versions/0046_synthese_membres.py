"""synthese_membres: the earliest due date each member still owes per organisation, kept by triggers

Revision ID: 0046_synthese_membres
Revises: 0045_notice_empreinte

A federation's consolidation counts the distinct members in arrears of every organisation. Counted
over the overdue dues, that read 5 M rows at national scale (2.6–3.0 s); counted over this summary, one row per
(organisation, member). How the triggers keep it exact under concurrent writers: cotisations/synthese_sql.py. As
for migration 0013, a later migration that rebuilds ``cotisation`` in SQLite batch mode drops these triggers with
the old table and must create them again (tests/cotisations/test_synthese.py checks them at head). The backfill
is one INSERT … SELECT … GROUP BY under a SHARE lock on ``cotisation`` (writers of dues wait for it; reads go on).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from unionflow.cotisations.synthese_sql import DUS, MEMBRES, rebuild_membres

revision: str = "0046_synthese_membres"
down_revision: str | Sequence[str] | None = "0045_notice_empreinte"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAIR = "organisation_id, membre_id"


def _moves(old: str, new: str) -> str:
    """A change that can move a member's earliest open date: the due opens or closes, or an open due changes its
    date, organisation or member. Marking open dues EN_RETARD (the daily job) moves nothing, recomputes nothing."""
    was, now = f"{old}.statut IN {DUS}", f"{new}.statut IN {DUS}"
    moved = " OR ".join(f"{old}.{c} IS DISTINCT FROM {new}.{c}" for c in ("date_echeance", "organisation_id", "membre_id"))
    return f"(({was}) <> ({now}) OR (({was} OR {now}) AND ({moved})))"


_MOVES = _moves("a", "n")
_TOUCHED_BY_UPDATE = (f"SELECT a.organisation_id, a.membre_id FROM anciennes a JOIN nouvelles n USING (id) "
                      f"WHERE a.statut IN {DUS} AND ({_MOVES}) UNION "
                      f"SELECT n.organisation_id, n.membre_id FROM anciennes a JOIN nouvelles n USING (id) "
                      f"WHERE n.statut IN {DUS} AND ({_MOVES})")
_TOUCHED_BY_DELETE = f"SELECT DISTINCT {PAIR} FROM anciennes WHERE statut IN {DUS}"


def _recompute(touched: str) -> str:
    """Lock the members' rows (created if missing) in key order, then recompute them in a new statement, whose
    snapshot holds every earlier holder's committed dues."""
    return (f"INSERT INTO {MEMBRES} ({PAIR}) SELECT {PAIR} FROM ({touched}) AS t ORDER BY {PAIR} "
            f"ON CONFLICT ({PAIR}) DO UPDATE SET premiere_echeance_due = {MEMBRES}.premiere_echeance_due; "
            f"UPDATE {MEMBRES} m SET premiere_echeance_due = (SELECT min(c.date_echeance) FROM cotisation c "
            f"WHERE c.organisation_id = m.organisation_id AND c.membre_id = m.membre_id AND c.statut IN {DUS}) "
            f"FROM ({touched}) AS t WHERE m.organisation_id = t.organisation_id AND m.membre_id = t.membre_id;")


PG_FUNCTIONS = {
    # An open due inserted can only lower its member's date: one upsert, atomic on the member's row.
    "cotisation_membre_synthese_inserer": (
        f"INSERT INTO {MEMBRES} ({PAIR}, premiere_echeance_due) SELECT {PAIR}, min(date_echeance) FROM nouvelles "
        f"WHERE statut IN {DUS} GROUP BY {PAIR} ORDER BY {PAIR} ON CONFLICT ({PAIR}) DO UPDATE SET "
        f"premiere_echeance_due = least({MEMBRES}.premiere_echeance_due, excluded.premiere_echeance_due);"),
    "cotisation_membre_synthese_modifier": _recompute(_TOUCHED_BY_UPDATE),
    "cotisation_membre_synthese_supprimer": _recompute(_TOUCHED_BY_DELETE),
    "cotisation_membre_synthese_vider": f"DELETE FROM {MEMBRES};",
}
PG_TRIGGERS = [
    ("cotisation_membre_synthese_ai", "AFTER INSERT", "REFERENCING NEW TABLE AS nouvelles", "inserer"),
    ("cotisation_membre_synthese_au", "AFTER UPDATE", "REFERENCING OLD TABLE AS anciennes NEW TABLE AS nouvelles",
     "modifier"),
    ("cotisation_membre_synthese_ad", "AFTER DELETE", "REFERENCING OLD TABLE AS anciennes", "supprimer"),
    ("cotisation_membre_synthese_at", "AFTER TRUNCATE", "", "vider"),
]


def _sqlite_recompute(row: str) -> str:
    return (f"INSERT INTO {MEMBRES} ({PAIR}, premiere_echeance_due) VALUES ({row}.organisation_id, {row}.membre_id, "
            f"(SELECT min(date_echeance) FROM cotisation WHERE organisation_id = {row}.organisation_id "
            f"AND membre_id = {row}.membre_id AND statut IN {DUS})) "
            f"ON CONFLICT ({PAIR}) DO UPDATE SET premiere_echeance_due = excluded.premiere_echeance_due;")


SQLITE_TRIGGERS = {
    "cotisation_membre_synthese_ai": (
        f"AFTER INSERT ON cotisation WHEN NEW.statut IN {DUS} BEGIN "
        f"INSERT INTO {MEMBRES} ({PAIR}, premiere_echeance_due) "
        f"VALUES (NEW.organisation_id, NEW.membre_id, NEW.date_echeance) ON CONFLICT ({PAIR}) DO UPDATE SET "
        f"premiere_echeance_due = coalesce(min({MEMBRES}.premiere_echeance_due, excluded.premiere_echeance_due), "
        f"excluded.premiere_echeance_due); END"),
    "cotisation_membre_synthese_ad": (f"AFTER DELETE ON cotisation WHEN OLD.statut IN {DUS} BEGIN "
                                      f"{_sqlite_recompute('OLD')} END"),
    "cotisation_membre_synthese_au": (
        f"AFTER UPDATE OF statut, date_echeance, {PAIR} ON cotisation WHEN {_moves('OLD', 'NEW')} BEGIN "
        f"{_sqlite_recompute('OLD')} {_sqlite_recompute('NEW')} END"),
}


def upgrade() -> None:
    op.create_table(
        MEMBRES,
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("membre_id", sa.Uuid(), nullable=False),
        sa.Column("premiere_echeance_due", sa.Date(), nullable=True),
        sa.PrimaryKeyConstraint("organisation_id", "membre_id", name=op.f(f"pk_{MEMBRES}")),
    )
    op.create_index("ix_cotisation_membre_synthese_echeance", MEMBRES, ["organisation_id", "premiere_echeance_due"])
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        for function, body in PG_FUNCTIONS.items():
            op.execute(f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} "
                       "RETURN NULL; END $$")
        for trigger, event, referencing, function in PG_TRIGGERS:
            op.execute(f"CREATE TRIGGER {trigger} {event} ON cotisation {referencing} FOR EACH STATEMENT "
                       f"EXECUTE FUNCTION cotisation_membre_synthese_{function}()")
    else:
        for trigger, body in SQLITE_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {trigger} {body}")
    for statement in rebuild_membres(dialect):
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
    op.drop_index("ix_cotisation_membre_synthese_echeance", table_name=MEMBRES)
    op.drop_table(MEMBRES)
