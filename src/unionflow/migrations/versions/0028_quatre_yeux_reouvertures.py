"""quatre_yeux_reouvertures: the requests to reopen a locked period become REOUVERTURE four-eyes requests

Revision ID: 0028_quatre_yeux_reouvertures
Revises: 0027_quatre_yeux

Every row of ``demande_deverrouillage`` (pending, approved, rejected, withdrawn) is carried into
``demande_approbation`` with its id (the audit trail names it): its two dates go to ``details``, the requester's
role to ``role_demandeur``, withdrawn (ANNULEE) becomes RETIREE, and a decided request's decider becomes its one
decision (level 1). Rows are copied in Python so that the JSON is written the same way on SQLite and PostgreSQL.
The old table is dropped; downgrade recreates it and copies the REOUVERTURE rows back.
"""
import uuid
from collections.abc import Sequence
from datetime import date

import sqlalchemy as sa
from alembic import op

revision: str = "0028_quatre_yeux_reouvertures"
down_revision: str | Sequence[str] | None = "0027_quatre_yeux"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PERSON_KEY_LENGTH = 511
GENRE = "REOUVERTURE"
T = "demande_deverrouillage"
DATE = sa.DateTime(timezone=True)

ANCIENNE = sa.table(
    T, *(sa.column(n, t) for n, t in (
        ("id", sa.Uuid()), ("organisation_id", sa.Uuid()), ("date_actuelle", sa.Date()),
        ("date_demandee", sa.Date()), ("motif", sa.String()), ("statut", sa.String()), ("demande_par", sa.String()),
        ("demande_par_sub", sa.String()), ("role_demandeur", sa.String()), ("date_demande", DATE),
        ("decide_par", sa.String()), ("decide_par_sub", sa.String()), ("role_decideur", sa.String()),
        ("commentaire", sa.String()), ("date_decision", DATE))))
DEMANDE = sa.table(
    "demande_approbation", *(sa.column(n, t) for n, t in (
        ("id", sa.Uuid()), ("genre", sa.String()), ("nature", sa.String()), ("numero", sa.String()),
        ("organisation_id", sa.Uuid()), ("objet_id", sa.Uuid()), ("montant", sa.Numeric(18, 2)),
        ("devise", sa.String()), ("motif", sa.String()), ("statut", sa.String()), ("niveaux_requis", sa.Integer()),
        ("niveau_atteint", sa.Integer()), ("demande_par", sa.String()), ("demande_par_sub", sa.String()),
        ("role_demandeur", sa.String()), ("date_demande", DATE), ("date_decision", DATE),
        ("motif_retrait", sa.String()), ("details", sa.JSON()), ("created_at", DATE), ("updated_at", DATE))))
DECISION = sa.table(
    "decision_demande", *(sa.column(n, t) for n, t in (
        ("id", sa.Uuid()), ("demande_id", sa.Uuid()), ("niveau", sa.Integer()), ("decision", sa.String()),
        ("decideur", sa.String()), ("decideur_sub", sa.String()), ("role", sa.String()),
        ("commentaire", sa.String()), ("date_decision", DATE))))
DECIDEES = ("APPROUVEE", "REJETEE")


def _demande(r: sa.Row) -> dict[str, object]:
    return {"id": r.id, "genre": GENRE, "nature": None, "numero": None, "organisation_id": r.organisation_id,
            "objet_id": None, "montant": None, "devise": None, "motif": r.motif,
            "statut": "RETIREE" if r.statut == "ANNULEE" else r.statut, "niveaux_requis": 1,
            "niveau_atteint": 1 if r.statut == "APPROUVEE" else 0, "demande_par": r.demande_par,
            "demande_par_sub": r.demande_par_sub, "role_demandeur": r.role_demandeur,
            "date_demande": r.date_demande, "date_decision": r.date_decision, "motif_retrait": None,
            "details": {"date_actuelle": r.date_actuelle.isoformat(), "date_demandee": r.date_demandee.isoformat()},
            "created_at": r.date_demande, "updated_at": r.date_decision or r.date_demande}


def _decision(r: sa.Row) -> dict[str, object]:
    return {"id": uuid.uuid4(), "demande_id": r.id, "niveau": 1, "decision": r.statut,
            "decideur": r.decide_par or "", "decideur_sub": r.decide_par_sub or "", "role": r.role_decideur,
            "commentaire": r.commentaire, "date_decision": r.date_decision or r.date_demande}


def upgrade() -> None:
    bind = op.get_bind()
    rows = list(bind.execute(sa.select(ANCIENNE)))
    if rows:
        bind.execute(sa.insert(DEMANDE), [_demande(r) for r in rows])
        decisions = [_decision(r) for r in rows if r.statut in DECIDEES]
        if decisions:
            bind.execute(sa.insert(DECISION), decisions)
    op.drop_index(op.f("ix_demande_deverrouillage_organisation_id"), table_name=T)
    op.drop_table(T)


def downgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("date_actuelle", sa.Date(), nullable=False),
        sa.Column("date_demandee", sa.Date(), nullable=False),
        sa.Column("motif", sa.String(length=1000), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=False),
        sa.Column("role_demandeur", sa.String(length=40), nullable=False),
        sa.Column("date_demande", DATE, nullable=False),
        sa.Column("decide_par", sa.String(length=254), nullable=True),
        sa.Column("decide_par_sub", sa.String(length=PERSON_KEY_LENGTH), nullable=True),
        sa.Column("role_decideur", sa.String(length=40), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", DATE, nullable=True),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_demande_deverrouillage_organisation_id_organisation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demande_deverrouillage")),
    )
    op.create_index(op.f("ix_demande_deverrouillage_organisation_id"), T, ["organisation_id"])
    bind = op.get_bind()
    decisions = {d.demande_id: d for d in bind.execute(
        sa.select(DECISION).join(DEMANDE, DEMANDE.c.id == DECISION.c.demande_id).where(DEMANDE.c.genre == GENRE))}
    rows = []
    for r in bind.execute(sa.select(DEMANDE).where(DEMANDE.c.genre == GENRE)):
        d = decisions.get(r.id)
        details = r.details or {}
        rows.append({"id": r.id, "organisation_id": r.organisation_id,
                     "date_actuelle": date.fromisoformat(details["date_actuelle"]),
                     "date_demandee": date.fromisoformat(details["date_demandee"]), "motif": r.motif,
                     "statut": "ANNULEE" if r.statut == "RETIREE" else r.statut, "demande_par": r.demande_par,
                     "demande_par_sub": r.demande_par_sub, "role_demandeur": r.role_demandeur or "",
                     "date_demande": r.date_demande, "decide_par": d.decideur if d else None,
                     "decide_par_sub": d.decideur_sub if d else None, "role_decideur": d.role if d else None,
                     "commentaire": d.commentaire if d else None, "date_decision": r.date_decision})
    if rows:
        bind.execute(sa.insert(ANCIENNE), rows)
    reouvertures = sa.select(DEMANDE.c.id).where(DEMANDE.c.genre == GENRE)
    bind.execute(sa.delete(DECISION).where(DECISION.c.demande_id.in_(reouvertures)))
    bind.execute(sa.delete(DEMANDE).where(DEMANDE.c.genre == GENRE))
