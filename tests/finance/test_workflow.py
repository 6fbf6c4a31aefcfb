from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from tests.factories.finance import bureau
from unionflow.models import DecisionDemande, DemandeApprobation

URL = "/api/finance/workflow"
APP = "/api/finance/approbations"


async def _demande(client, b, montant):
    r = await client.post(APP, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "typeObjet": "AUTRE", "montant": montant, "motif": "Dépense"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


async def _dater(db, approbation_id, demande, decision=None):
    aid = uuid.UUID(approbation_id)
    await db.execute(update(DemandeApprobation).where(DemandeApprobation.id == aid).values(
        date_demande=demande, **({"date_decision": decision} if decision else {})))
    if decision:
        await db.execute(update(DecisionDemande).where(DecisionDemande.demande_id == aid)
                         .values(date_decision=decision))
    await db.flush()


async def test_statistics_aggregate_volumes_delays_and_approvers(client, factory, db):
    b = await bureau(factory)
    t0 = datetime.now(UTC) - timedelta(days=20)
    a1 = await _demande(client, b, "100000")
    await client.post(f"{APP}/{a1}/approuver", headers=b.president.headers)
    await _dater(db, a1, t0, t0 + timedelta(hours=2))
    a2 = await _demande(client, b, "50000")
    await client.post(f"{APP}/{a2}/rejeter", headers=b.admin_org.headers, json={"commentaire": "Non prévu"})
    await _dater(db, a2, t0, t0 + timedelta(hours=4))
    a3 = await _demande(client, b, "30000")
    await client.post(f"{APP}/{a3}/approuver", headers=b.president.headers)
    await _dater(db, a3, t0, t0 + timedelta(hours=6))
    old = await _demande(client, b, "20000")
    await _dater(db, old, datetime.now(UTC) - timedelta(days=10))
    await _demande(client, b, "5000")
    cancelled = await _demande(client, b, "1000")
    await client.post(f"{APP}/{cancelled}/annuler", headers=b.tresorier.headers, json={"motif": "Erreur"})
    other = await bureau(factory)
    await _demande(client, other, "999999")

    r = await client.get(f"{URL}/statistiques", headers=b.president.headers)
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["enAttente"] == {"nombre": 2, "montant": "25000.00"}
    assert s["approuvees"] == {"nombre": 2, "montant": "130000.00"}
    assert s["rejetees"] == {"nombre": 1, "montant": "50000.00"}
    assert s["annulees"] == {"nombre": 1, "montant": "1000.00"}
    assert s["enAttenteDepuisPlusDe"] == 1
    assert s["delaiMoyenHeures"] == "4.00" and s["tauxApprobation"] == "66.67"
    assert {(x["typeObjet"], x["statut"], x["nombre"]) for x in s["parType"]} == {
        ("AUTRE", "APPROUVEE", 2), ("AUTRE", "REJETEE", 1), ("AUTRE", "EN_ATTENTE", 2), ("AUTRE", "ANNULEE", 1)}
    approvers = {x["approbateur"]: x for x in s["parApprobateur"]}
    president = approvers[b.president.user.email]
    assert (president["approbations"], president["rejets"], president["montantApprouve"],
            president["delaiMoyenHeures"]) == (2, 0, "130000.00", "4.00")
    admin_org = approvers[b.admin_org.user.email]
    assert (admin_org["approbations"], admin_org["rejets"], admin_org["montantApprouve"]) == (0, 1, "0.00")

    recent = await client.get(f"{URL}/statistiques", headers=b.president.headers, params={
        "dateDebut": (datetime.now(UTC) - timedelta(days=15)).date().isoformat(), "delaiAlerteJours": 30})
    assert recent.json()["approuvees"]["nombre"] == 0 and recent.json()["enAttente"]["nombre"] == 2
    assert recent.json()["enAttenteDepuisPlusDe"] == 0 and recent.json()["delaiMoyenHeures"] is None
    admin = await factory.actor(["ADMIN"], with_membre=False)
    union = await client.get(f"{URL}/statistiques", headers=admin.headers, params={"organisationId": str(other.org.id)})
    assert union.json()["enAttente"] == {"nombre": 1, "montant": "999999.00"}
    foreign = await client.get(f"{URL}/statistiques", headers=b.president.headers,
                               params={"organisationId": str(other.org.id)})
    assert foreign.json()["enAttente"]["nombre"] == 0
    assert (await client.get(f"{URL}/statistiques", headers=b.membre.headers)).status_code == 403
    bad = await client.get(f"{URL}/statistiques", headers=admin.headers,
                           params={"dateDebut": "2026-05-01", "dateFin": "2026-04-01"})
    assert bad.status_code == 400
    assert (await client.get(f"{URL}/statistiques", headers=admin.headers,
                             params={"delaiAlerteJours": 0})).status_code == 400


async def test_audit_trail_of_finance_module(client, factory):
    b = await bureau(factory)
    aid = await _demande(client, b, "100000")
    await client.post(f"{APP}/{aid}/approuver", headers=b.president.headers, json={"commentaire": "Accord"})
    budget = await client.post("/api/finance/budgets", headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "annee": 2026, "libelle": "Budget 2026"})
    assert budget.status_code == 201
    # An entry of another module and of another organisation never shows.
    await client.put("/api/organisations/" + str(b.org.id), headers=b.admin_org.headers, json={"ville": "Thiès"})
    other = await bureau(factory)
    await _demande(client, other, "1000")

    trail = await client.get(f"{URL}/audit", headers=b.president.headers)
    assert trail.status_code == 200, trail.text
    rows = trail.json()["content"]
    assert [(r["entiteType"], r["typeAction"]) for r in rows] == [
        ("Budget", "CREER"), ("Approbation", "APPROUVER"), ("Approbation", "CREER")]
    assert rows[1]["utilisateur"] == b.president.user.email and rows[1]["description"] == "Accord"
    only = await client.get(f"{URL}/audit", headers=b.tresorier.headers, params={"entiteId": aid})
    assert [r["typeAction"] for r in only.json()["content"]] == ["APPROUVER", "CREER"]
    typed = await client.get(f"{URL}/audit", headers=b.tresorier.headers, params={"entiteType": "Budget"})
    assert trail.json()["totalElements"] == 3 and typed.json()["totalElements"] == 1
    future = await client.get(f"{URL}/audit", headers=b.tresorier.headers, params={"dateDebut": "2099-01-01"})
    assert future.json()["content"] == []
    assert (await client.get(f"{URL}/audit", headers=b.membre.headers)).status_code == 403
    assert (await client.get(f"{URL}/audit", headers=b.president.headers, params={"size": 201})).status_code == 400
