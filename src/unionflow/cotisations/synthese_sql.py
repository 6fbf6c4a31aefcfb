"""SQL of the dues summary (``cotisation_synthese``, docs/architecture.md "Statistics of dues") as plain text per
dialect, importing nothing of the application but the shared mechanics (core/resume_sql.py): migration 0013 runs
the rebuild as its backfill, the bench's loader after its COPY, the CLI and the compaction job through
``cotisations/synthese_repository.py``.

The summary holds one row per bucket (organisation, type, stored status, year, month, due date) with the count
and the sums of the dues in it. Triggers on ``cotisation`` (migration 0013) never touch it: they append signed
deltas to ``cotisation_synthese_delta``, so concurrent writers of one organisation never wait on, nor deadlock
over, a shared summary row. The compaction folds the deltas into the summary; readers add both.
"""

from __future__ import annotations

from unionflow.core.resume_sql import Resume

SYNTHESE = "cotisation_synthese"
DELTA = "cotisation_synthese_delta"
KEY = "organisation_id, type_cotisation, statut, annee, mois, date_echeance"
FIGURES = "nombre, montant_du, montant_paye"
# The unique key of the summary: NULL months (annual dues) are one bucket per (organisation, ..., due date);
# months are 1..12 (API validation), so 0 never collides with a real month.
CONFLICT = "organisation_id, type_cotisation, statut, annee, (coalesce(mois, 0)), date_echeance"
# Any fixed number: compactions (job, CLI) and rebuilds take turns on PostgreSQL.
RESUME = Resume(SYNTHESE, DELTA, KEY, FIGURES, CONFLICT, advisory_lock=742_012_013)

_BACKFILL = (f"INSERT INTO {SYNTHESE} ({KEY}, {FIGURES}) "
             f"SELECT {KEY}, count(*), sum(montant_du), sum(montant_paye) FROM cotisation GROUP BY {KEY}")


def rebuild(dialect: str) -> list[str]:
    """Statements that recompute the summary from ``cotisation`` and drop the pending deltas, in ONE
    transaction (core/resume_sql.py)."""
    return RESUME.rebuild(dialect, "cotisation", _BACKFILL)


def compact(dialect: str) -> list[str]:
    """Statements that fold every committed delta into the summary, in ONE transaction (core/resume_sql.py)."""
    return RESUME.compact(dialect)


# --- The per-member summary: the earliest due date each member still owes, per organisation --------------------
# « Members in arrears » is a count of distinct members, which no bucket above can hold. One row per (organisation,
# member) keeps the earliest due date among the member's open dues there (NULL once none is open); a member is in
# arrears on a date when that earliest date is before it. Triggers keep it (migration 0046): an open due inserted
# lowers the date (an upsert of the smaller date, atomic on the row); any other change that can move it (status,
# due date, organisation or member changed, a due deleted) locks the member's row first, then recomputes it from
# the member's open dues in a NEW statement, whose snapshot holds every writer that had the lock before. So the
# last writer to hold a member's row always sees all the others' committed dues and its own: exact under
# concurrent writers, with contention per member only.
MEMBRES = "cotisation_membre_synthese"
# models/cotisation.py STATUTS_DUS, as stored (this module imports nothing from the application).
DUS = "('EN_ATTENTE', 'PARTIELLEMENT_PAYEE', 'EN_RETARD')"
_MEMBRES_BACKFILL = (f"INSERT INTO {MEMBRES} (organisation_id, membre_id, premiere_echeance_due) "
                     f"SELECT organisation_id, membre_id, min(date_echeance) FROM cotisation "
                     f"WHERE statut IN {DUS} GROUP BY organisation_id, membre_id")


def rebuild_membres(dialect: str) -> list[str]:
    """Statements that recompute the per-member summary from ``cotisation``, in ONE transaction (as ``rebuild``)."""
    if dialect == "postgresql":
        return ["SET LOCAL statement_timeout = 0", "LOCK TABLE cotisation IN SHARE MODE",
                f"TRUNCATE {MEMBRES}", _MEMBRES_BACKFILL]
    return [f"DELETE FROM {MEMBRES}", _MEMBRES_BACKFILL]
