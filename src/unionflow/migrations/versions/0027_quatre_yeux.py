"""quatre_yeux: one table of four-eyes requests and one of their decisions; finance approvals carried into them

Revision ID: 0027_quatre_yeux
Revises: 0026_tresoreries

Finance approvals, reopenings of a locked period and undo requests were three mechanisms with three tables. They
become kinds (``genre``) of one mechanism (unionflow/approbations). This revision creates its two tables and
carries every finance approval and its decisions into them, ids kept (an undo request's ``approbation_id`` and the
audit trail still name them); withdrawn, spelled ANNULEE by finance, is the mechanism's RETIREE. The undo
requests' link is re-pointed and the old tables dropped. Downgrade carries the FINANCE rows back.
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027_quatre_yeux"
down_revision: str | Sequence[str] | None = "0026_tresoreries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

D = "demande_approbation"
DEC = "decision_demande"
PERSON_KEY_LENGTH = 511
LIEN_ANCIEN = "fk_demande_annulation_approbation_id_approbation"
LIEN_NOUVEAU = "fk_demande_annulation_approbation_id_demande_approbation"


def _creer() -> None:
    op.create_table(
        D,
        sa.Column("genre", sa.String(length=30), nullable=False),
        sa.Column("nature", sa.String(length=30), nullable=True),
        sa.Column("numero", sa.String(length=40), nullable=True),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("objet_id", sa.Uuid(), nullable=True),
        sa.Column("montant", sa.Numeric(precision=18, scale=2), nullable=True),
        sa.Column("devise", sa.String(length=3), nullable=True),
        sa.Column("motif", sa.String(length=1000), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("niveaux_requis", sa.Integer(), nullable=False),
        sa.Column("niveau_atteint", sa.Integer(), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=False),
        sa.Column("role_demandeur", sa.String(length=40), nullable=True),
        sa.Column("date_demande", sa.DateTime(timezone=True), nullable=False),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=True),
        sa.Column("motif_retrait", sa.String(length=1000), nullable=True),
        sa.Column("details", sa.JSON(), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_demande_approbation_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demande_approbation")),
        sa.UniqueConstraint("numero", name=op.f("uq_demande_approbation_numero")),
    )
    op.create_index("ix_demande_approbation_date_demande", D, ["date_demande"])
    op.create_index("ix_demande_approbation_objet", D, ["genre", "objet_id"])
    op.create_index("ix_demande_approbation_organisation_statut", D, ["organisation_id", "statut"])
    op.create_table(
        DEC,
        sa.Column("demande_id", sa.Uuid(), nullable=False),
        sa.Column("niveau", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=20), nullable=False),
        sa.Column("decideur", sa.String(length=254), nullable=False),
        sa.Column("decideur_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=False),
        sa.Column("role", sa.String(length=50), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(["demande_id"], ["demande_approbation.id"], ondelete="CASCADE",
                                name=op.f("fk_decision_demande_demande_id_demande_approbation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decision_demande")),
        sa.UniqueConstraint("demande_id", "decideur_sub", name="uq_decision_demande_decideur"),
        sa.UniqueConstraint("demande_id", "niveau", name=op.f("uq_decision_demande_demande_id")),
    )
    op.create_index("ix_decision_demande_decideur", DEC, ["decideur"])
    op.create_index(op.f("ix_decision_demande_demande_id"), DEC, ["demande_id"])


def _creer_anciennes() -> None:
    op.create_table(
        "approbation",
        sa.Column("numero", sa.String(length=40), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_objet", sa.String(length=20), nullable=False),
        sa.Column("objet_id", sa.Uuid(), nullable=True),
        sa.Column("montant", sa.Numeric(precision=18, scale=2), nullable=False),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("motif", sa.String(length=1000), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("niveaux_requis", sa.Integer(), nullable=False),
        sa.Column("niveau_atteint", sa.Integer(), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=False),
        sa.Column("date_demande", sa.DateTime(timezone=True), nullable=False),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=True),
        sa.Column("motif_annulation", sa.String(length=1000), nullable=True),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_approbation_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_approbation")),
        sa.UniqueConstraint("numero", name=op.f("uq_approbation_numero")),
    )
    op.create_index("ix_approbation_date_demande", "approbation", ["date_demande"])
    op.create_index("ix_approbation_objet", "approbation", ["type_objet", "objet_id"])
    op.create_index("ix_approbation_organisation_statut", "approbation", ["organisation_id", "statut"])
    op.create_table(
        "decision_approbation",
        sa.Column("approbation_id", sa.Uuid(), nullable=False),
        sa.Column("niveau", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=20), nullable=False),
        sa.Column("approbateur", sa.String(length=254), nullable=False),
        sa.Column("approbateur_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=False),
        sa.Column("role", sa.String(length=50), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(["approbation_id"], ["approbation.id"],
                                name=op.f("fk_decision_approbation_approbation_id_approbation"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decision_approbation")),
        sa.UniqueConstraint("approbation_id", "approbateur_sub", name="uq_decision_approbation_approbateur"),
        sa.UniqueConstraint("approbation_id", "niveau", name=op.f("uq_decision_approbation_approbation_id")),
    )
    op.create_index("ix_decision_approbation_approbateur", "decision_approbation", ["approbateur"])
    op.create_index(op.f("ix_decision_approbation_approbation_id"), "decision_approbation", ["approbation_id"])


def _relier(ancien: str, nouveau: str, table: str) -> None:
    """Point the undo requests' ``approbation_id`` at ``table`` (SQLite rebuilds the table to do so)."""
    with op.batch_alter_table("demande_annulation") as batch:
        batch.drop_constraint(ancien, type_="foreignkey")
        batch.create_foreign_key(nouveau, table, ["approbation_id"], ["id"])


def upgrade() -> None:
    _creer()
    op.execute("""
        INSERT INTO demande_approbation (id, genre, nature, numero, organisation_id, objet_id, montant, devise, motif, statut,
                         niveaux_requis, niveau_atteint, demande_par, demande_par_sub, role_demandeur, date_demande,
                         date_decision, motif_retrait, details, created_at, updated_at)
        SELECT id, 'FINANCE', type_objet, numero, organisation_id, objet_id, montant, devise, motif,
               CASE WHEN statut = 'ANNULEE' THEN 'RETIREE' ELSE statut END, niveaux_requis, niveau_atteint,
               demande_par, demande_par_sub, NULL, date_demande, date_decision, motif_annulation, NULL, created_at,
               updated_at
        FROM approbation""")
    op.execute("""
        INSERT INTO decision_demande (id, demande_id, niveau, decision, decideur, decideur_sub, role, commentaire, date_decision)
        SELECT id, approbation_id, niveau, decision, approbateur, approbateur_sub, role, commentaire, date_decision
        FROM decision_approbation""")
    _relier(LIEN_ANCIEN, LIEN_NOUVEAU, D)
    op.drop_table("decision_approbation")
    op.drop_table("approbation")


def downgrade() -> None:
    _creer_anciennes()
    op.execute("""
        INSERT INTO approbation (id, numero, organisation_id, type_objet, objet_id, montant, devise, motif, statut,
                                 niveaux_requis, niveau_atteint, demande_par, demande_par_sub, date_demande,
                                 date_decision, motif_annulation, created_at, updated_at)
        SELECT id, numero, organisation_id, nature, objet_id, montant, devise, motif,
               CASE WHEN statut = 'RETIREE' THEN 'ANNULEE' ELSE statut END, niveaux_requis, niveau_atteint,
               demande_par, demande_par_sub, date_demande, date_decision, motif_retrait, created_at, updated_at
        FROM demande_approbation WHERE genre = 'FINANCE'""")
    op.execute("""
        INSERT INTO decision_approbation (id, approbation_id, niveau, decision, approbateur, approbateur_sub, role,
                                          commentaire, date_decision)
        SELECT d.id, d.demande_id, d.niveau, d.decision, d.decideur, d.decideur_sub, d.role, d.commentaire,
               d.date_decision
        FROM decision_demande d JOIN demande_approbation a ON a.id = d.demande_id WHERE a.genre = 'FINANCE'""")
    _relier(LIEN_NOUVEAU, LIEN_ANCIEN, "approbation")
    op.drop_table(DEC)
    op.drop_table(D)
