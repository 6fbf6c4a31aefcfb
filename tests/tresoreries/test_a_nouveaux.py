"""Opening balances (issue 20, item 3): one balanced AN entry dated the start date, the net against the report à
nouveau; once per fiscal year; a year already used needs a reason; a cash box never opens below zero. Typed
balances are a four-eyes request (issue 28): nothing is booked until a second person approves."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

from tests.factories.tresoreries import declarer, org_avec_encaissement
from tests.livres import lignes_de_piece

ANNEE = datetime.now(UTC).year
DEBUT = date(ANNEE, 1, 1).isoformat()


async def test_a_nouveaux_une_fois_par_exercice(client, factory, db):
    org, treasurer, president, member = await org_avec_encaissement(client, factory, db, montant=None)
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "CBAO", "5211", decouvertAutorise="0"))).json()
    made = await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "2441", "libelle": "Matériel de bureau"})
    assert made.status_code in (200, 201), made.text
    body = {"organisationId": str(org.id), "dateDebut": DEBUT,
            "tresoreries": [{"tresorerieId": caisse["id"], "montant": "150000"},
                            {"tresorerieId": banque["id"], "montant": "300000"}],
            "comptes": [{"numeroCompte": "2441", "montant": "500000"}]}
    negative = await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json={
        **body, "tresoreries": [{"tresorerieId": caisse["id"], "montant": "-10"}]})
    assert negative.status_code == 400 and "Caisse" in negative.json()["detail"]
    forbidden = await client.post("/api/tresoreries/a-nouveaux", headers=member.headers, json=body)
    assert forbidden.status_code == 403
    headers = {**treasurer.headers, "Idempotency-Key": "an-1"}
    asked = await client.post("/api/tresoreries/a-nouveaux", headers=headers, json=body)
    assert asked.status_code == 202, asked.text
    demande = asked.json()
    assert demande["statut"] == "EN_ATTENTE" and demande["numeroPiece"] is None
    assert demande["dateDebut"] == DEBUT and demande["montantTotal"] == "950000.00"
    # Nothing is booked while the request waits; its requester never approves it.
    assert await lignes_de_piece(db, org, f"AN-{ANNEE}") == []
    url = f"/api/tresoreries/a-nouveaux/{demande['id']}"
    own = await client.post(f"{url}/approuver", headers=treasurer.headers, json={})
    assert own.status_code == 403, own.text
    pending = await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json=body)
    assert pending.status_code == 409 and "attendent déjà" in pending.json()["detail"]
    done = await client.post(f"{url}/approuver", headers=president.headers, json={"commentaire": "Relevés vus"})
    assert done.status_code == 200, done.text
    out = done.json()
    assert out["statut"] == "APPROUVEE" and out["numeroPiece"].startswith("AN-") and out["decidePar"]
    assert out["decidePar"] != out["demandePar"] and out["roleDecideur"]
    assert await lignes_de_piece(db, org, f"AN-{ANNEE}") == [
        ("571", Decimal("150000"), Decimal("0")), ("5211", Decimal("300000"), Decimal("0")),
        ("2441", Decimal("500000"), Decimal("0")), ("121", Decimal("0"), Decimal("950000"))]
    replay = await client.post("/api/tresoreries/a-nouveaux", headers=headers, json=body)
    assert replay.status_code == 202 and replay.json()["id"] == demande["id"]
    again = await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json=body)
    assert again.status_code == 409 and "déjà saisis" in again.json()["detail"]
    listed = {t["numeroCompte"]: t["solde"] for t in (await client.get(
        "/api/tresoreries", headers=president.headers, params={"organisationId": str(org.id)})).json()}
    assert listed == {"571": "150000.00", "5211": "300000.00"}


async def test_a_nouveaux_tardifs_exigent_un_motif(client, factory, db):
    org, treasurer, president, _ = await org_avec_encaissement(client, factory, db, "5000")
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    body = {"organisationId": str(org.id), "dateDebut": DEBUT,
            "tresoreries": [{"tresorerieId": caisse["id"], "montant": "20000"}]}
    late = await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json=body)
    assert late.status_code == 400 and "motif" in late.json()["detail"]
    asked = await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers,
                              json={**body, "motif": "Démarrage de la caisse après la première collecte"})
    assert asked.status_code == 202, asked.text
    url = f"/api/tresoreries/a-nouveaux/{asked.json()['id']}"
    before = (await client.get(f"/api/tresoreries/{caisse['id']}", headers=treasurer.headers)).json()
    assert before["solde"] == "5000.00"
    done = await client.post(f"{url}/approuver", headers=president.headers, json={})
    assert done.status_code == 200, done.text
    after = (await client.get(f"/api/tresoreries/{caisse['id']}", headers=treasurer.headers)).json()
    assert after["solde"] == "25000.00"


async def test_a_nouveaux_rejetes_ou_retires_ne_passent_rien(client, factory, db):
    org, treasurer, president, _ = await org_avec_encaissement(client, factory, db, montant=None)
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    body = {"organisationId": str(org.id), "dateDebut": DEBUT,
            "tresoreries": [{"tresorerieId": caisse["id"], "montant": "70000"}]}
    first = (await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json=body)).json()
    refused = await client.post(f"/api/tresoreries/a-nouveaux/{first['id']}/rejeter", headers=president.headers,
                                json={"commentaire": "Le relevé de caisse ne porte pas 70 000"})
    assert refused.status_code == 200 and refused.json()["statut"] == "REJETEE"
    second = (await client.post("/api/tresoreries/a-nouveaux", headers=treasurer.headers, json=body)).json()
    not_his = await client.post(f"/api/tresoreries/a-nouveaux/{second['id']}/retirer", headers=president.headers)
    assert not_his.status_code == 403
    withdrawn = await client.post(f"/api/tresoreries/a-nouveaux/{second['id']}/retirer", headers=treasurer.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["statut"] == "RETIREE"
    assert await lignes_de_piece(db, org, f"AN-{ANNEE}") == []
    listed = await client.get("/api/tresoreries/a-nouveaux", headers=president.headers,
                              params={"organisationId": str(org.id)})
    assert [d["statut"] for d in listed.json()] == ["RETIREE", "REJETEE"]
