"""recus_series_organisation: each organisation's receipt series, declarations outside it, who received the money

Revision ID: 0018_recus_series_organisation
Revises: 0017_recherche_cle_sans_accents

See docs/decisions.md, "séries par organisation". The lead re-chains at merge.
- ``organisation.code_serie``: the short code printed in the organisation's receipt numbers; every existing
  organisation gets one here (same rule as ``core/numbering.sigle``, copied: migrations never import the
  application), new ones at their first receipt.
- ``paiement.reference_declaration``: a declared payment's own reference (DEC-…), outside the receipt series.
- ``paiement.recu_par``: who received the money. Filled for existing received payments from what the rows and the
  audit trail already say: the treasurer who confirmed a declaration (audit CONFIRMER), else whoever recorded it.
Existing receipt numbers (REC-<year>-<n>) are left as they are: they stay valid and verifiable.
"""
import re
import unicodedata
import uuid
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_recus_series_organisation"
down_revision: str | Sequence[str] | None = "0017_recherche_cle_sans_accents"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SIGLE_MAX = 8
MOTS_VIDES = frozenset({"DE", "DU", "DES", "LA", "LE", "LES", "L", "D", "ET", "POUR", "EN", "AU", "AUX", "A"})


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().upper()


def _sigle(nom_court: str | None, nom: str) -> str:
    court = re.sub(r"[^A-Z0-9]", "", _ascii(nom_court or ""))
    if court:
        return court[:SIGLE_MAX]
    mots = [m for m in re.split(r"[^A-Z0-9]+", _ascii(nom)) if m]
    initiales = "".join(m[0] for m in mots if m not in MOTS_VIDES)
    if len(initiales) >= 2:
        return initiales[:SIGLE_MAX]
    return ("".join(mots)[:4] or "ORG").ljust(2, "X")


def upgrade() -> None:
    with op.batch_alter_table("organisation", schema=None) as batch_op:
        batch_op.add_column(sa.Column("code_serie", sa.String(length=12), nullable=True))
        batch_op.create_unique_constraint(op.f("uq_organisation_code_serie"), ["code_serie"])
    with op.batch_alter_table("paiement", schema=None) as batch_op:
        batch_op.add_column(sa.Column("recu_par", sa.String(length=254), nullable=True))
        batch_op.add_column(sa.Column("reference_declaration", sa.String(length=40), nullable=True))
        batch_op.create_unique_constraint(op.f("uq_paiement_reference_declaration"), ["reference_declaration"])

    bind = op.get_bind()
    organisation = sa.table("organisation", sa.column("id", sa.Uuid()), sa.column("nom", sa.String()),
                            sa.column("nom_court", sa.String()), sa.column("code_serie", sa.String()),
                            sa.column("created_at", sa.DateTime()))
    pris: set[str] = set()
    rows = bind.execute(sa.select(organisation.c.id, organisation.c.nom, organisation.c.nom_court)
                        .order_by(organisation.c.created_at, organisation.c.id)).all()
    for org_id, nom, nom_court in rows:
        base = _sigle(nom_court, nom or "")
        code = next(c for c in [base, *(f"{base}{n}" for n in range(2, 10_000))] if c not in pris)
        pris.add(code)
        bind.execute(organisation.update().where(organisation.c.id == org_id).values(code_serie=code))

    paiement = sa.table("paiement", sa.column("id", sa.Uuid()), sa.column("statut", sa.String()),
                        sa.column("enregistre_par", sa.String()), sa.column("recu_par", sa.String()))
    audit = sa.table("audit_log", sa.column("type_action", sa.String()), sa.column("entite_type", sa.String()),
                     sa.column("entite_id", sa.String()), sa.column("utilisateur", sa.String()))
    bind.execute(paiement.update().where(paiement.c.statut.in_(("VALIDE", "ANNULE", "REMBOURSE")))
                 .values(recu_par=paiement.c.enregistre_par))
    confirmations = bind.execute(sa.select(audit.c.entite_id, audit.c.utilisateur).where(
        audit.c.type_action == "CONFIRMER", audit.c.entite_type == "Paiement")).all()
    for entite_id, utilisateur in confirmations:
        try:
            paiement_id = uuid.UUID(entite_id)
        except (TypeError, ValueError):
            continue
        bind.execute(paiement.update().where(paiement.c.id == paiement_id).values(recu_par=utilisateur))


def downgrade() -> None:
    with op.batch_alter_table("paiement", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("uq_paiement_reference_declaration"), type_="unique")
        batch_op.drop_column("reference_declaration")
        batch_op.drop_column("recu_par")
    with op.batch_alter_table("organisation", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("uq_organisation_code_serie"), type_="unique")
        batch_op.drop_column("code_serie")
