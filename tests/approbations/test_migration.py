"""The four-eyes migrations carry every pending and decided request of the former tables, and back."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import sqlalchemy as sa

from tests.test_migrations import _sql, _tables, empty_database_url  # noqa: F401  (fixture)
from unionflow import models
from unionflow.migrations.alembic import downgrade, upgrade

AVANT = "0026_tresoreries"
NOW = datetime.now(UTC)
STAMPS = {"created_at": NOW, "updated_at": NOW}


def _table(nom: str, **colonnes: sa.types.TypeEngine) -> sa.TableClause:
    return sa.table(nom, *(sa.column(c, t) for c, t in colonnes.items()))


APPROBATION = _table("approbation", id=sa.Uuid(), numero=sa.String(), organisation_id=sa.Uuid(),
                     type_objet=sa.String(), objet_id=sa.Uuid(), montant=sa.Numeric(18, 2), devise=sa.String(),
                     motif=sa.String(), statut=sa.String(), niveaux_requis=sa.Integer(),
                     niveau_atteint=sa.Integer(), demande_par=sa.String(), demande_par_sub=sa.String(),
                     date_demande=sa.DateTime(timezone=True), date_decision=sa.DateTime(timezone=True),
                     motif_annulation=sa.String(), created_at=sa.DateTime(timezone=True),
                     updated_at=sa.DateTime(timezone=True))
DECISION = _table("decision_approbation", id=sa.Uuid(), approbation_id=sa.Uuid(), niveau=sa.Integer(),
                  decision=sa.String(), approbateur=sa.String(), approbateur_sub=sa.String(), role=sa.String(),
                  commentaire=sa.String(), date_decision=sa.DateTime(timezone=True))


def _approbation(org: uuid.UUID, n: int, statut: str, **extra: object) -> dict[str, object]:
    return {"id": uuid.uuid4(), "numero": f"APP-2026-{n:06d}", "organisation_id": org, "type_objet": "AUTRE",
            "objet_id": None, "montant": Decimal("2500000.00"), "devise": "XOF", "motif": f"Dépense {n}",
            "statut": statut, "niveaux_requis": 2, "niveau_atteint": 0, "demande_par": "tresorier@x.sn",
            "demande_par_sub": "https://idp/ t1", "date_demande": NOW - timedelta(days=n),
            "date_decision": None, "motif_annulation": None, **STAMPS, **extra}


def _decision(approbation: dict[str, object], niveau: int, decision: str, qui: str) -> dict[str, object]:
    return {"id": uuid.uuid4(), "approbation_id": approbation["id"], "niveau": niveau, "decision": decision,
            "approbateur": f"{qui}@x.sn", "approbateur_sub": f"https://idp/ {qui}", "role": "PRESIDENT",
            "commentaire": f"avis de {qui}", "date_decision": NOW}


def test_finance_approvals_pending_and_decided_are_carried_and_given_back(empty_database_url):  # noqa: F811
    url = empty_database_url
    upgrade(url, AVANT)
    org = uuid.uuid4()
    attente = _approbation(org, 1, "EN_ATTENTE", niveau_atteint=1)
    approuvee = _approbation(org, 2, "APPROUVEE", niveau_atteint=2, date_decision=NOW)
    rejetee = _approbation(org, 3, "REJETEE", date_decision=NOW)
    annulee = _approbation(org, 4, "ANNULEE", date_decision=NOW, motif_annulation="plus utile")
    decisions = [_decision(attente, 1, "APPROUVEE", "p1"), _decision(approuvee, 1, "APPROUVEE", "p1"),
                 _decision(approuvee, 2, "APPROUVEE", "a2"), _decision(rejetee, 1, "REJETEE", "p1")]
    asyncio.run(_sql(url, [
        (sa.insert(models.Organisation.__table__), {"id": org, "nom": "Association Q", "statut": "ACTIVE",
                                                    "type_organisation": "ASSOCIATION", "pays": "SN",
                                                    "devise": "XOF", **STAMPS}),
        (sa.insert(APPROBATION), [attente, approuvee, rejetee, annulee]),
        (sa.insert(DECISION), decisions),
    ]))
    upgrade(url)

    demandes = models.DemandeApprobation.__table__
    rows = asyncio.run(_sql(url, [(sa.select(demandes.c.id, demandes.c.genre, demandes.c.nature, demandes.c.statut,
                                             demandes.c.niveau_atteint, demandes.c.motif_retrait,
                                             demandes.c.montant, demandes.c.demande_par_sub)
                                   .order_by(demandes.c.numero), None)]))
    assert [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        (attente["id"], "FINANCE", "AUTRE", "EN_ATTENTE", 1, None),
        (approuvee["id"], "FINANCE", "AUTRE", "APPROUVEE", 2, None),
        (rejetee["id"], "FINANCE", "AUTRE", "REJETEE", 0, None),
        (annulee["id"], "FINANCE", "AUTRE", "RETIREE", 0, "plus utile")]
    assert {Decimal(r[6]) for r in rows} == {Decimal("2500000.00")} and {r[7] for r in rows} == {"https://idp/ t1"}
    table = models.DecisionDemande.__table__
    carried = asyncio.run(_sql(url, [(sa.select(table.c.id, table.c.demande_id, table.c.niveau, table.c.decision,
                                                table.c.decideur, table.c.decideur_sub, table.c.commentaire), None)]))
    assert sorted(carried, key=str) == sorted(
        [(d["id"], d["approbation_id"], d["niveau"], d["decision"], d["approbateur"], d["approbateur_sub"],
          d["commentaire"]) for d in decisions], key=str)
    assert not {"approbation", "decision_approbation"} & asyncio.run(_tables(url))

    downgrade(url, AVANT)
    back = asyncio.run(_sql(url, [(sa.select(APPROBATION.c.id, APPROBATION.c.statut, APPROBATION.c.motif_annulation)
                                   .order_by(APPROBATION.c.numero), None)]))
    assert back == [(attente["id"], "EN_ATTENTE", None), (approuvee["id"], "APPROUVEE", None),
                    (rejetee["id"], "REJETEE", None), (annulee["id"], "ANNULEE", "plus utile")]
    assert len(asyncio.run(_sql(url, [(sa.select(DECISION.c.id), None)]))) == 4
    upgrade(url)


REOUVERTURE = _table("demande_deverrouillage", id=sa.Uuid(), organisation_id=sa.Uuid(), date_actuelle=sa.Date(),
                     date_demandee=sa.Date(), motif=sa.String(), statut=sa.String(), demande_par=sa.String(),
                     demande_par_sub=sa.String(), role_demandeur=sa.String(),
                     date_demande=sa.DateTime(timezone=True), decide_par=sa.String(), decide_par_sub=sa.String(),
                     role_decideur=sa.String(), commentaire=sa.String(), date_decision=sa.DateTime(timezone=True))


def _reouverture(org: uuid.UUID, n: int, statut: str, decideur: str | None = None) -> dict[str, object]:
    return {"id": uuid.uuid4(), "organisation_id": org, "date_actuelle": date(2026, 6, 30),
            "date_demandee": date(2026, 3, n), "motif": f"Facture oubliée {n}", "statut": statut,
            "demande_par": "tresorier@x.sn", "demande_par_sub": "https://idp/ t1", "role_demandeur": "TRESORIER",
            "date_demande": NOW - timedelta(days=n), "decide_par": f"{decideur}@x.sn" if decideur else None,
            "decide_par_sub": f"https://idp/ {decideur}" if decideur else None,
            "role_decideur": "PRESIDENT" if decideur else None, "commentaire": "vu" if decideur else None,
            "date_decision": NOW if statut != "EN_ATTENTE" else None}


def _naif(row: dict[str, object]) -> dict[str, object]:
    """Timestamps in UTC without offset: SQLite gives them back so through a plain table clause."""
    return {k: v.astimezone(UTC).replace(tzinfo=None) if isinstance(v, datetime) and v.tzinfo else v
            for k, v in row.items()}


def test_reopenings_pending_and_decided_are_carried_and_given_back(empty_database_url):  # noqa: F811
    url = empty_database_url
    upgrade(url, AVANT)
    org = uuid.uuid4()
    rows = [_reouverture(org, 1, "EN_ATTENTE"), _reouverture(org, 2, "APPROUVEE", "p1"),
            _reouverture(org, 3, "REJETEE", "a2"), _reouverture(org, 4, "ANNULEE")]
    asyncio.run(_sql(url, [
        (sa.insert(models.Organisation.__table__), {"id": org, "nom": "Association R", "statut": "ACTIVE",
                                                    "type_organisation": "ASSOCIATION", "pays": "SN",
                                                    "devise": "XOF", **STAMPS}),
        (sa.insert(REOUVERTURE), rows),
    ]))
    upgrade(url)

    demandes = models.DemandeApprobation.__table__
    carried = asyncio.run(_sql(url, [(sa.select(demandes.c.id, demandes.c.genre, demandes.c.statut,
                                                demandes.c.role_demandeur, demandes.c.niveau_atteint,
                                                demandes.c.details, demandes.c.demande_par_sub)
                                      .order_by(demandes.c.date_demande.desc()), None)]))
    assert carried == [
        (r["id"], "REOUVERTURE", {"ANNULEE": "RETIREE"}.get(str(r["statut"]), r["statut"]), "TRESORIER",
         1 if r["statut"] == "APPROUVEE" else 0,
         {"date_actuelle": "2026-06-30", "date_demandee": f"2026-03-0{n}"}, "https://idp/ t1")
        for n, r in enumerate(rows, start=1)]
    table = models.DecisionDemande.__table__
    decisions = asyncio.run(_sql(url, [(sa.select(table.c.demande_id, table.c.niveau, table.c.decision,
                                                  table.c.decideur, table.c.decideur_sub, table.c.role)
                                        .order_by(table.c.decideur), None)]))
    assert decisions == [(rows[2]["id"], 1, "REJETEE", "a2@x.sn", "https://idp/ a2", "PRESIDENT"),
                         (rows[1]["id"], 1, "APPROUVEE", "p1@x.sn", "https://idp/ p1", "PRESIDENT")]
    assert "demande_deverrouillage" not in asyncio.run(_tables(url))

    downgrade(url, AVANT)
    back = asyncio.run(_sql(url, [(sa.select(REOUVERTURE).order_by(REOUVERTURE.c.date_demande.desc()), None)]))
    assert [_naif(dict(zip(REOUVERTURE.c.keys(), r, strict=True))) for r in back] == [_naif(r) for r in rows]
    upgrade(url)


ANNULATION = _table("demande_annulation", id=sa.Uuid(), organisation_id=sa.Uuid(), type_annulation=sa.String(),
                    paiement_id=sa.Uuid(), versement_id=sa.Uuid(), ecriture_id=sa.Uuid(), membre_id=sa.Uuid(),
                    reference=sa.String(), montant=sa.Numeric(18, 2), devise=sa.String(), motif=sa.String(),
                    statut=sa.String(), demande_par=sa.String(), demande_par_sub=sa.String(),
                    date_demande=sa.DateTime(timezone=True), approbation_id=sa.Uuid(), decide_par=sa.String(),
                    decide_par_sub=sa.String(), commentaire=sa.String(), date_decision=sa.DateTime(timezone=True),
                    numero_remboursement=sa.String())
OBJET = {"ANNULATION_PAIEMENT": "paiement_id", "REMBOURSEMENT_PAIEMENT": "paiement_id",
         "ANNULATION_VERSEMENT": "versement_id", "CONTREPASSATION_ECRITURE": "ecriture_id",
         "REMBOURSEMENT_AVOIR": "membre_id"}


def _annulation(org: uuid.UUID, n: int, nature: str, statut: str, decideur: str | None = None,
                **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": uuid.uuid4(), "organisation_id": org, "type_annulation": nature, "paiement_id": None,
        "versement_id": None, "ecriture_id": None, "membre_id": None, "reference": f"REF-{n}",
        "montant": Decimal("15000.00"), "devise": "XOF", "motif": f"Erreur {n}", "statut": statut,
        "demande_par": "tresorier@x.sn", "demande_par_sub": "https://idp/ t1", "date_demande": NOW - timedelta(days=n),
        "approbation_id": None, "decide_par": f"{decideur}@x.sn" if decideur else None,
        "decide_par_sub": f"https://idp/ {decideur}" if decideur else None,
        "commentaire": "vu" if decideur else None, "date_decision": NOW if statut != "EN_ATTENTE" else None,
        "numero_remboursement": None}
    row[OBJET[nature]] = uuid.uuid4()
    row.update(extra)
    return row


def _sans_contraintes(url: str) -> list[tuple[object, object]]:
    """Rows about payments, payouts and members that this test does not create: foreign keys off on this scratch
    database (PostgreSQL; SQLite does not check them here), for this session and the migrations' own."""
    if not url.startswith("postgresql"):
        return []
    nom = sa.engine.make_url(url).database
    return [(f'ALTER DATABASE "{nom}" SET session_replication_role = replica', None),
            ("SET LOCAL session_replication_role = replica", None)]


def test_undo_requests_pending_and_decided_are_carried_and_given_back(empty_database_url):  # noqa: F811
    url = empty_database_url
    upgrade(url, AVANT)
    org = uuid.uuid4()
    finance = _approbation(org, 9, "EN_ATTENTE", type_objet="ANNULATION")
    rows = [
        _annulation(org, 1, "ANNULATION_PAIEMENT", "EN_ATTENTE", membre_id=uuid.uuid4(),
                    approbation_id=finance["id"], montant=Decimal("2500000.00")),
        _annulation(org, 2, "REMBOURSEMENT_PAIEMENT", "APPROUVEE", "p1", membre_id=uuid.uuid4(),
                    numero_remboursement="RMB-Q-2026-000001"),
        _annulation(org, 3, "CONTREPASSATION_ECRITURE", "REJETEE", "a2"),
        _annulation(org, 4, "ANNULATION_VERSEMENT", "RETIREE"),
        _annulation(org, 5, "REMBOURSEMENT_AVOIR", "APPROUVEE", "p1", numero_remboursement="RMB-Q-2026-000002"),
    ]
    asyncio.run(_sql(url, [
        *_sans_contraintes(url),
        (sa.insert(models.Organisation.__table__), {"id": org, "nom": "Association S", "statut": "ACTIVE",
                                                    "type_organisation": "ASSOCIATION", "pays": "SN",
                                                    "devise": "XOF", **STAMPS}),
        (sa.insert(APPROBATION), finance),
        (sa.insert(ANNULATION), rows),
    ]))
    upgrade(url)

    demandes = models.DemandeApprobation.__table__
    carried = asyncio.run(_sql(url, [(sa.select(demandes.c.id, demandes.c.nature, demandes.c.objet_id,
                                                demandes.c.statut, demandes.c.numero, demandes.c.details,
                                                demandes.c.niveau_atteint)
                                      .where(demandes.c.genre == "ANNULATION")
                                      .order_by(demandes.c.date_demande.desc()), None)]))
    assert carried == [
        (r["id"], r["type_annulation"], r[OBJET[str(r["type_annulation"])]], r["statut"], r["numero_remboursement"],
         {"reference": r["reference"], "membre_id": str(r["membre_id"]) if r["membre_id"] else None,
          **({"approbation_id": str(finance["id"])} if r["approbation_id"] else {})},
         1 if r["statut"] == "APPROUVEE" else 0) for r in rows]
    table = models.DecisionDemande.__table__
    decisions = asyncio.run(_sql(url, [(sa.select(table.c.demande_id, table.c.decision, table.c.decideur,
                                                  table.c.decideur_sub, table.c.commentaire)
                                        .where(table.c.demande_id.in_([r["id"] for r in rows]))
                                        .order_by(table.c.decideur, table.c.decision), None)]))
    assert sorted(decisions, key=str) == sorted([
        (rows[2]["id"], "REJETEE", "a2@x.sn", "https://idp/ a2", "vu"),
        (rows[1]["id"], "APPROUVEE", "p1@x.sn", "https://idp/ p1", "vu"),
        (rows[4]["id"], "APPROUVEE", "p1@x.sn", "https://idp/ p1", "vu")], key=str)
    assert "demande_annulation" not in asyncio.run(_tables(url))

    downgrade(url, AVANT)
    back = asyncio.run(_sql(url, [(sa.select(ANNULATION).order_by(ANNULATION.c.date_demande.desc()), None)]))
    assert [_naif(dict(zip(ANNULATION.c.keys(), r, strict=True))) for r in back] == [_naif(r) for r in rows]
    upgrade(url)
