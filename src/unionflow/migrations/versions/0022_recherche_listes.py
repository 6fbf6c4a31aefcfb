"""recherche: the search key without accents nor case on ticket, suggestion, feedback and utilisateur_local

Revision ID: 0022_recherche_listes
Revises: 0021_durcir_personne

the free-text filter of every list (tickets, suggestions, feedback, local accounts) ignores accents
and case as the members', events' and organisations' already do (migration 0017, models/texte.py). The key is
computed in Python (``cle_recherche``), so the backfill reads the searched columns by batches of ids and writes
each key back. The lead re-chains at merge.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from unionflow.models.texte import cle_recherche

revision: str = "0022_recherche_listes"
down_revision: str | Sequence[str] | None = "0021_durcir_personne"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Table -> searched columns, in the order of the models' ``colonne_recherche``.
SOURCES = {"ticket": ("numero", "sujet", "description"),
           "suggestion": ("titre", "description"),
           "feedback": ("message", "contexte"),
           "utilisateur_local": ("email", "username", "prenom", "nom")}
BATCH = 1000


def _backfill(table_name: str, champs: tuple[str, ...]) -> None:
    table = sa.table(table_name, sa.column("id", sa.Uuid()), sa.column("recherche", sa.Text()),
                     *(sa.column(c, sa.Text()) for c in champs))
    bind = op.get_bind()
    update = (sa.update(table).where(table.c.id == sa.bindparam("b_id"))
              .values(recherche=sa.bindparam("b_recherche")))
    dernier = None
    while True:
        stmt = sa.select(table.c.id, *(table.c[c] for c in champs)).order_by(table.c.id).limit(BATCH)
        if dernier is not None:
            stmt = stmt.where(table.c.id > dernier)
        rows = bind.execute(stmt).all()
        if not rows:
            return
        bind.execute(update, [{"b_id": r[0], "b_recherche": cle_recherche(*r[1:])} for r in rows])
        dernier = rows[-1][0]


def upgrade() -> None:
    for table_name, champs in SOURCES.items():
        with op.batch_alter_table(table_name) as batch:
            batch.add_column(sa.Column("recherche", sa.Text(), server_default="", nullable=False))
        _backfill(table_name, champs)


def downgrade() -> None:
    for table_name in SOURCES:
        with op.batch_alter_table(table_name) as batch:
            batch.drop_column("recherche")
