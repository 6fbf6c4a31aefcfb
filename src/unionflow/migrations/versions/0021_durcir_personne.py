"""durcir_personne: rows tied to a person store (issuer, subject), not the subject alone

Revision ID: 0021_durcir_personne
Revises: 0020_quatreyeux_annulations

Migration 0014 linked members and audit entries to (issuer, subject); the other rows tied to the
caller still stored his token's ``sub`` alone, so a token of another issuer carrying the same ``sub`` owned them
(documents, download tickets, favourites, feedback, tickets and their messages, budget submissions, approvals and
their decisions, unlock requests, monthly closings, background tasks, idempotency keys). These columns now hold
the person key of core.auth.person_key, ``"<issuer> <subject>"`` (an issuer URL holds no space). Existing rows
were written by tokens of the built-in issuer (the only one whose subjects these columns held before external
providers were tested), so they are prefixed with the built-in issuer of the settings the migration runs with
(``UNIONFLOW_BUILTIN_ISSUER``, else ``UNIONFLOW_PUBLIC_BASE_URL``), as 0014 did: run it with the service's settings.

The columns widen to 511 characters (issuer and subject of 255 each) on PostgreSQL; SQLite does not bound text
length, so only the values change there (no table rebuild). Downgrade keeps the subject (the old meaning).
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from unionflow.config import get_settings

revision: str = "0021_durcir_personne"
down_revision: str | Sequence[str] | None = "0020_quatreyeux_annulations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column, former length, nullable)
COLUMNS = (
    ("document", "proprietaire_sub", 255, False),
    ("telechargement_document", "utilisateur_sub", 255, False),
    ("favori", "utilisateur_sub", 255, False),
    ("feedback", "auteur_sub", 255, False),
    ("ticket", "demandeur_sub", 255, False),
    ("ticket_message", "auteur_sub", 255, False),
    ("budget", "soumis_par_sub", 255, True),
    ("approbation", "demande_par_sub", 255, False),
    ("decision_approbation", "approbateur_sub", 255, False),
    ("demande_deverrouillage", "demande_par_sub", 255, False),
    ("demande_deverrouillage", "decide_par_sub", 255, True),
    ("cloture_mensuelle", "cloturee_par_sub", 255, False),
    ("tache", "cree_par", 254, False),
    ("cle_idempotence", "appelant", 255, False),
)
PERSON_KEY_LENGTH = 511


def _resize(widen: bool) -> None:
    """PostgreSQL only: widen to the person key, or back to each former length."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column, former, nullable in COLUMNS:
        old, new = (former, PERSON_KEY_LENGTH) if widen else (PERSON_KEY_LENGTH, former)
        op.alter_column(table, column, existing_type=sa.String(old), type_=sa.String(new), existing_nullable=nullable)


def upgrade() -> None:
    _resize(widen=True)
    issuer = get_settings().issuer
    for table, column, _former, _nullable in COLUMNS:
        rows = sa.table(table, sa.column(column, sa.String()))
        value = rows.c[column]
        # Only bare subjects: a value already keyed (holding a space) is left as it is.
        op.execute(sa.update(rows).where(value.is_not(None), value.not_like("% %"))
                   .values({column: sa.literal(issuer, sa.String()) + " " + value}))


def downgrade() -> None:
    space = sa.func.instr if op.get_bind().dialect.name == "sqlite" else sa.func.strpos
    for table, column, _former, _nullable in COLUMNS:
        rows = sa.table(table, sa.column(column, sa.String()))
        value = rows.c[column]
        op.execute(sa.update(rows).where(value.like("% %"))
                   .values({column: sa.func.substr(value, space(value, " ") + 1)}))
    _resize(widen=False)
