"""SQL of the ledger summary per month (``solde_compte_mois``, docs/architecture.md « Ledger balances per month »)
as plain text per dialect, importing nothing of the application but the shared mechanics (core/resume_sql.py):
migration 0047 creates the triggers and runs the rebuild as its backfill, the bench's loader after its COPY, the
CLI and the compaction job through ``comptabilite/soldes_repository.py``.

One row per (organisation, account, journal, month) holds the count of entry lines and their debits and credits.
The journal is in the key, not its type, so a statement that leaves the closing journal out joins the few
journals instead of trusting a copy of their type. Triggers on ``ligne_ecriture`` and ``ecriture_comptable``
append signed deltas to ``solde_compte_mois_delta`` (as the dues summary does): a payment's entry never waits on
another payment's, and readers add the deltas to the summary.
"""

from __future__ import annotations

from unionflow.core.resume_sql import Resume

SYNTHESE = "solde_compte_mois"
DELTA = "solde_compte_mois_delta"
KEY = "organisation_id, compte_id, journal_id, mois"
FIGURES = "nombre, debit, credit"
RESUME = Resume(SYNTHESE, DELTA, KEY, FIGURES, KEY, advisory_lock=742_012_047)


def mois(dialect: str, column: str) -> str:
    """The first day of ``column``'s month, as each dialect stores a date."""
    if dialect == "postgresql":
        return f"date_trunc('month', {column})::date"
    return f"date({column}, 'start of month')"


def _lines(dialect: str, lines: str, entries: str, sign: str = "") -> str:
    """Signed sums of ``lines`` per bucket, their entries' attributes read from ``entries``."""
    return (f"SELECT e.organisation_id, l.compte_id, e.journal_id, {mois(dialect, 'e.date_ecriture')} AS mois, "
            f"{sign}count(*) AS nombre, {sign}sum(l.debit) AS debit, {sign}sum(l.credit) AS credit "
            f"FROM {lines} l JOIN {entries} e ON e.id = l.ecriture_id "
            f"GROUP BY e.organisation_id, l.compte_id, e.journal_id, {mois(dialect, 'e.date_ecriture')}")


def _netted(plus: str, minus: str) -> str:
    """Old rows out, new rows in, netted per bucket: an update that moves no figure appends nothing."""
    return (f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) SELECT {KEY}, sum(nombre), sum(debit), sum(credit) "
            f"FROM ({plus} UNION ALL {minus}) AS d GROUP BY {KEY} "
            f"HAVING sum(nombre) <> 0 OR sum(debit) <> 0 OR sum(credit) <> 0")


def rebuild(dialect: str) -> list[str]:
    """Statements that recompute the summary from every entry line and drop the pending deltas, in ONE
    transaction (core/resume_sql.py)."""
    backfill = (f"INSERT INTO {SYNTHESE} ({KEY}, {FIGURES}) "
                f"{_lines(dialect, 'ligne_ecriture', 'ecriture_comptable')}")
    return RESUME.rebuild(dialect, "ecriture_comptable, ligne_ecriture", backfill)


def compact(dialect: str) -> list[str]:
    """Statements that fold every committed delta into the summary, in ONE transaction (core/resume_sql.py)."""
    return RESUME.compact(dialect)


# --- Triggers (migration 0047) ----------------------------------------------------------------------------------
# PostgreSQL: statement-level triggers with transition tables, one INSERT of grouped deltas per statement.
# A line's bucket needs its entry: lines inserted, updated or deleted join ``ecriture_comptable``; an entry whose
# organisation, journal or date changes moves its lines between buckets. An entry deleted takes its lines with it
# (ON DELETE CASCADE): its lines' deltas are appended BEFORE the entry goes (a row trigger on the entry, while its
# lines still exist), and the cascaded line deletes that follow find no entry to join, so nothing is counted twice.
PG_FUNCTIONS = {
    "solde_compte_mois_lignes_inserer":
        f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) {_lines('postgresql', 'nouvelles', 'ecriture_comptable')};",
    "solde_compte_mois_lignes_supprimer":
        f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) {_lines('postgresql', 'anciennes', 'ecriture_comptable', '-')};",
    "solde_compte_mois_lignes_modifier":
        _netted(_lines("postgresql", "nouvelles", "ecriture_comptable"),
                _lines("postgresql", "anciennes", "ecriture_comptable", "-")) + ";",
    "solde_compte_mois_ecritures_modifier":
        _netted(_lines("postgresql", "ligne_ecriture", "nouvelles"),
                _lines("postgresql", "ligne_ecriture", "anciennes", "-")) + ";",
    "solde_compte_mois_vider": f"DELETE FROM {DELTA}; DELETE FROM {SYNTHESE};",
}
# (trigger, table, event, referencing, function). PostgreSQL refuses transition tables on ``UPDATE OF <columns>``:
# the update triggers fire on every update and the netting (``_netted``) appends nothing when no figure moved.
PG_TRIGGERS = [
    ("solde_compte_mois_lignes_ai", "ligne_ecriture", "AFTER INSERT", "REFERENCING NEW TABLE AS nouvelles",
     "lignes_inserer"),
    ("solde_compte_mois_lignes_au", "ligne_ecriture", "AFTER UPDATE",
     "REFERENCING OLD TABLE AS anciennes NEW TABLE AS nouvelles", "lignes_modifier"),
    ("solde_compte_mois_lignes_ad", "ligne_ecriture", "AFTER DELETE", "REFERENCING OLD TABLE AS anciennes",
     "lignes_supprimer"),
    ("solde_compte_mois_lignes_at", "ligne_ecriture", "AFTER TRUNCATE", "", "vider"),
    ("solde_compte_mois_ecritures_au", "ecriture_comptable",
     "AFTER UPDATE", "REFERENCING OLD TABLE AS anciennes NEW TABLE AS nouvelles", "ecritures_modifier"),
]
# The entry deleted: a row trigger, BEFORE, so its lines are still there to be counted out.
PG_ROW_FUNCTION = ("solde_compte_mois_ecriture_supprimer",
                   f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) "
                   f"SELECT OLD.organisation_id, l.compte_id, OLD.journal_id, "
                   f"{mois('postgresql', 'OLD.date_ecriture')}, -count(*), -sum(l.debit), -sum(l.credit) "
                   f"FROM ligne_ecriture l WHERE l.ecriture_id = OLD.id GROUP BY l.compte_id;")
PG_ROW_TRIGGER = "solde_compte_mois_ecritures_bd"


def _sqlite_line(row: str, sign: str = "") -> str:
    return (f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) "
            f"SELECT e.organisation_id, {row}.compte_id, e.journal_id, {mois('sqlite', 'e.date_ecriture')}, "
            f"{sign}1, {sign}{row}.debit, {sign}{row}.credit "
            f"FROM ecriture_comptable e WHERE e.id = {row}.ecriture_id;")


def _sqlite_entry(row: str, sign: str = "") -> str:
    return (f"INSERT INTO {DELTA} ({KEY}, {FIGURES}) "
            f"SELECT {row}.organisation_id, l.compte_id, {row}.journal_id, {mois('sqlite', f'{row}.date_ecriture')}, "
            f"{sign}count(*), {sign}sum(l.debit), {sign}sum(l.credit) "
            f"FROM ligne_ecriture l WHERE l.ecriture_id = {row}.id GROUP BY l.compte_id;")


# SQLite: row triggers. The cascade deletes an entry's lines after the entry row is gone, so their AFTER DELETE
# trigger finds no entry to join, as on PostgreSQL.
SQLITE_TRIGGERS = {
    "solde_compte_mois_lignes_ai": f"AFTER INSERT ON ligne_ecriture BEGIN {_sqlite_line('NEW')} END",
    "solde_compte_mois_lignes_ad": f"AFTER DELETE ON ligne_ecriture BEGIN {_sqlite_line('OLD', '-')} END",
    "solde_compte_mois_lignes_au": "AFTER UPDATE OF compte_id, ecriture_id, debit, credit ON ligne_ecriture "
                                   f"BEGIN {_sqlite_line('OLD', '-')} {_sqlite_line('NEW')} END",
    "solde_compte_mois_ecritures_bd": f"BEFORE DELETE ON ecriture_comptable BEGIN {_sqlite_entry('OLD', '-')} END",
    "solde_compte_mois_ecritures_au": "AFTER UPDATE OF organisation_id, journal_id, date_ecriture "
                                      "ON ecriture_comptable "
                                      f"BEGIN {_sqlite_entry('OLD', '-')} {_sqlite_entry('NEW')} END",
}
