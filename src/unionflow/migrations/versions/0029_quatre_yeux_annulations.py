"""quatre_yeux_annulations: the requests to undo money become ANNULATION four-eyes requests

Revision ID: 0029_quatre_yeux_annulations
Revises: 0028_quatre_yeux_reouvertures

Every row of ``demande_annulation`` (pending, approved, rejected, withdrawn) is carried into
``demande_approbation`` with its id (the audit trail names it): ``type_annulation`` is its ``nature``, the payment,
payout or entry undone (the member, for a credit refund) its ``objet_id``, an approved refund's receipt number its
``numero``; the reference, the member told and the finance approval above the threshold go to ``details``. A
decided request's decider becomes its one decision (level 1). Rows are copied in Python so that the JSON is written
the same way on SQLite and PostgreSQL. The old table is dropped; downgrade recreates it and copies the rows back.
"""
import uuid
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029_quatre_yeux_annulations"
down_revision: str | Sequence[str] | None = "0028_quatre_yeux_reouvertures"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENRE = "ANNULATION"
T = "demande_annulation"
DATE = sa.DateTime(timezone=True)
OBJETS = {"ANNULATION_PAIEMENT": "paiement_id", "REMBOURSEMENT_PAIEMENT": "paiement_id",
          "ANNULATION_VERSEMENT": "versement_id", "CONTREPASSATION_ECRITURE": "ecriture_id",
          "REMBOURSEMENT_AVOIR": "membre_id"}
INDEXES = ("organisation_id", "paiement_id", "versement_id", "ecriture_id")


def _table(nom: str, colonnes: tuple[tuple[str, sa.types.TypeEngine], ...]) -> sa.TableClause:
    return sa.table(nom, *(sa.column(n, t) for n, t in colonnes))


ANCIENNE = _table(T, (
    ("id", sa.Uuid()), ("organisation_id", sa.Uuid()), ("type_annulation", sa.String()), ("paiement_id", sa.Uuid()),
    ("versement_id", sa.Uuid()), ("ecriture_id", sa.Uuid()), ("membre_id", sa.Uuid()), ("reference", sa.String()),
    ("montant", sa.Numeric(18, 2)), ("devise", sa.String()), ("motif", sa.String()), ("statut", sa.String()),
    ("demande_par", sa.String()), ("demande_par_sub", sa.String()), ("date_demande", DATE),
    ("approbation_id", sa.Uuid()), ("decide_par", sa.String()), ("decide_par_sub", sa.String()),
    ("commentaire", sa.String()), ("date_decision", DATE), ("numero_remboursement", sa.String())))
DEMANDE = _table("demande_approbation", (
    ("id", sa.Uuid()), ("genre", sa.String()), ("nature", sa.String()), ("numero", sa.String()),
    ("organisation_id", sa.Uuid()), ("objet_id", sa.Uuid()), ("montant", sa.Numeric(18, 2)), ("devise", sa.String()),
    ("motif", sa.String()), ("statut", sa.String()), ("niveaux_requis", sa.Integer()),
    ("niveau_atteint", sa.Integer()), ("demande_par", sa.String()), ("demande_par_sub", sa.String()),
    ("role_demandeur", sa.String()), ("date_demande", DATE), ("date_decision", DATE), ("motif_retrait", sa.String()),
    ("details", sa.JSON()), ("created_at", DATE), ("updated_at", DATE)))
DECISION = _table("decision_demande", (
    ("id", sa.Uuid()), ("demande_id", sa.Uuid()), ("niveau", sa.Integer()), ("decision", sa.String()),
    ("decideur", sa.String()), ("decideur_sub", sa.String()), ("role", sa.String()), ("commentaire", sa.String()),
    ("date_decision", DATE)))
DECIDEES = ("APPROUVEE", "REJETEE")


def _texte(valeur: uuid.UUID | None) -> str | None:
    return str(valeur) if valeur else None


def _demande(r: sa.Row) -> dict[str, object]:
    return {"id": r.id, "genre": GENRE, "nature": r.type_annulation, "numero": r.numero_remboursement,
            "organisation_id": r.organisation_id, "objet_id": getattr(r, OBJETS[r.type_annulation]),
            "montant": r.montant, "devise": r.devise, "motif": r.motif, "statut": r.statut, "niveaux_requis": 1,
            "niveau_atteint": 1 if r.statut == "APPROUVEE" else 0, "demande_par": r.demande_par,
            "demande_par_sub": r.demande_par_sub, "role_demandeur": None, "date_demande": r.date_demande,
            "date_decision": r.date_decision, "motif_retrait": None,
            "details": {"reference": r.reference, "membre_id": _texte(r.membre_id),
                        **({"approbation_id": _texte(r.approbation_id)} if r.approbation_id else {})},
            "created_at": r.date_demande, "updated_at": r.date_decision or r.date_demande}


def _decision(r: sa.Row) -> dict[str, object]:
    return {"id": uuid.uuid4(), "demande_id": r.id, "niveau": 1, "decision": r.statut,
            "decideur": r.decide_par or "", "decideur_sub": r.decide_par_sub or "", "role": None,
            "commentaire": r.commentaire, "date_decision": r.date_decision or r.date_demande}


def upgrade() -> None:
    bind = op.get_bind()
    rows = list(bind.execute(sa.select(ANCIENNE)))
    if rows:
        bind.execute(sa.insert(DEMANDE), [_demande(r) for r in rows])
        decisions = [_decision(r) for r in rows if r.statut in DECIDEES]
        if decisions:
            bind.execute(sa.insert(DECISION), decisions)
    op.drop_index("ix_demande_annulation_statut", table_name=T)
    for column in INDEXES:
        op.drop_index(op.f(f"ix_{T}_{column}"), table_name=T)
    op.drop_table(T)


def _ancienne(r: sa.Row, d: sa.Row | None) -> dict[str, object]:
    details = r.details or {}
    objets: dict[str, uuid.UUID | None] = {colonne: None for colonne in set(OBJETS.values())}
    objets[OBJETS[r.nature]] = r.objet_id
    membre = details.get("membre_id")
    if membre:
        objets["membre_id"] = uuid.UUID(membre)
    lien = details.get("approbation_id")
    return {"id": r.id, "organisation_id": r.organisation_id, "type_annulation": r.nature, **objets,
            "reference": details.get("reference", ""), "montant": r.montant, "devise": r.devise, "motif": r.motif,
            "statut": r.statut, "demande_par": r.demande_par, "demande_par_sub": r.demande_par_sub,
            "date_demande": r.date_demande, "approbation_id": uuid.UUID(lien) if lien else None,
            "decide_par": d.decideur if d else None, "decide_par_sub": d.decideur_sub if d else None,
            "commentaire": d.commentaire if d else None, "date_decision": r.date_decision,
            "numero_remboursement": r.numero}


def downgrade() -> None:
    op.create_table(
        T,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("organisation_id", sa.Uuid(), nullable=False),
        sa.Column("type_annulation", sa.String(length=30), nullable=False),
        sa.Column("paiement_id", sa.Uuid(), nullable=True),
        sa.Column("versement_id", sa.Uuid(), nullable=True),
        sa.Column("ecriture_id", sa.Uuid(), nullable=True),
        sa.Column("membre_id", sa.Uuid(), nullable=True),
        sa.Column("reference", sa.String(length=40), nullable=False),
        sa.Column("montant", sa.Numeric(18, 2), nullable=False),
        sa.Column("devise", sa.String(length=3), nullable=False),
        sa.Column("motif", sa.String(length=500), nullable=False),
        sa.Column("statut", sa.String(length=20), nullable=False),
        sa.Column("demande_par", sa.String(length=254), nullable=False),
        sa.Column("demande_par_sub", sa.String(length=511), nullable=False),
        sa.Column("date_demande", DATE, nullable=False),
        sa.Column("approbation_id", sa.Uuid(), nullable=True),
        sa.Column("decide_par", sa.String(length=254), nullable=True),
        sa.Column("decide_par_sub", sa.String(length=511), nullable=True),
        sa.Column("commentaire", sa.String(length=1000), nullable=True),
        sa.Column("date_decision", DATE, nullable=True),
        sa.Column("numero_remboursement", sa.String(length=40), nullable=True),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"],
                                name=op.f("fk_demande_annulation_organisation_id_organisation")),
        sa.ForeignKeyConstraint(["paiement_id"], ["paiement.id"], name=op.f("fk_demande_annulation_paiement_id_paiement")),
        sa.ForeignKeyConstraint(["versement_id"], ["versement.id"],
                                name=op.f("fk_demande_annulation_versement_id_versement")),
        sa.ForeignKeyConstraint(["ecriture_id"], ["ecriture_comptable.id"],
                                name=op.f("fk_demande_annulation_ecriture_id_ecriture_comptable")),
        sa.ForeignKeyConstraint(["membre_id"], ["membre.id"], name=op.f("fk_demande_annulation_membre_id_membre")),
        # As 0027 left it; 0027's downgrade points it back at ``approbation``.
        sa.ForeignKeyConstraint(["approbation_id"], ["demande_approbation.id"],
                                name=op.f("fk_demande_annulation_approbation_id_demande_approbation")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demande_annulation")),
        sa.UniqueConstraint("numero_remboursement", name=op.f("uq_demande_annulation_numero_remboursement")),
    )
    for column in INDEXES:
        op.create_index(op.f(f"ix_{T}_{column}"), T, [column])
    op.create_index("ix_demande_annulation_statut", T, ["organisation_id", "statut"])
    bind = op.get_bind()
    decisions = {d.demande_id: d for d in bind.execute(
        sa.select(DECISION).join(DEMANDE, DEMANDE.c.id == DECISION.c.demande_id).where(DEMANDE.c.genre == GENRE))}
    rows = [_ancienne(r, decisions.get(r.id))
            for r in bind.execute(sa.select(DEMANDE).where(DEMANDE.c.genre == GENRE))]
    if rows:
        bind.execute(sa.insert(ANCIENNE), rows)
    annulations = sa.select(DEMANDE.c.id).where(DEMANDE.c.genre == GENRE)
    bind.execute(sa.delete(DECISION).where(DECISION.c.demande_id.in_(annulations)))
    bind.execute(sa.delete(DEMANDE).where(DEMANDE.c.genre == GENRE))
