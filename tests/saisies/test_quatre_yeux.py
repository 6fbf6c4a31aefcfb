"""Manual entries under four eyes (issue 28, item 1): an entry touching a treasury, members' credit or a controlled
account is a request until a second person approves it; at approval the treasury rule holds."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal
from tests.factories.tresoreries import org_avec_encaissement
from tests.livres import solde
from unionflow.models import AuditLog

TODAY = datetime.now(UTC).date().isoformat()
URL = "/api/comptabilite/demandes-ecritures"


async def _bureau(client, factory, db, montant="75000"):
    org, treasurer, admin_org, member = await org_avec_encaissement(client, factory, db, montant)
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    auditor = await factory.actor(["USER"], organisation=org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    comptes = {c["numeroCompte"]: c["id"] for c in (await client.get(
        "/api/comptabilite/comptes", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
    for numero, libelle in (("6588", "Autres charges"), ("658", "Charges diverses"), ("7581", "Dons")):
        comptes.setdefault(numero, (await compte(client, treasurer.headers, org.id, numero, libelle))["id"])
    cai = await journal(client, treasurer.headers, org.id, "CAIS", "CAISSE")
    return org, treasurer, president, admin_org, auditor, member, comptes, cai


def _depense(cai, comptes, montant: str, charge: str = "6588", tresor: str = "571"):
    return ecriture(cai["id"], [(comptes[charge], montant, "0"), (comptes[tresor], "0", montant)], TODAY)


async def test_cash_leaves_only_when_a_second_person_approves(client, factory, db):
    org, treasurer, president, _, auditor, _, comptes, cai = await _bureau(client, factory, db)
    # The scenario: 80,000 out of a cash box holding 75,000 is refused at once, with the balance.
    over = await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                             json=_depense(cai, comptes, "80000"))
    assert over.status_code == 400 and "75 000 FCFA" in over.json()["detail"], over.text
    asked = await client.post("/api/comptabilite/ecritures", headers={**treasurer.headers, "Idempotency-Key": "e-1"},
                              json=_depense(cai, comptes, "30000"))
    assert asked.status_code == 202, asked.text
    demande = asked.json()
    assert demande["statut"] == "EN_ATTENTE" and demande["montant"] == "30000.00" and demande["ecritureId"] is None
    assert {lg["numeroCompte"]: lg["sousControle"] for lg in demande["lignes"]} == {"6588": False, "571": True}
    assert await solde(db, org, "571") == Decimal("75000")
    # The requester, the auditor and the member never approve; the auditor reads.
    assert (await client.post(f"{URL}/{demande['id']}/approuver", headers=treasurer.headers, json={})
            ).status_code == 403
    assert (await client.post(f"{URL}/{demande['id']}/approuver", headers=auditor.headers, json={})
            ).status_code == 403
    seen = await client.get(URL, headers=auditor.headers, params={"organisationId": str(org.id)})
    assert seen.status_code == 200 and [d["id"] for d in seen.json()] == [demande["id"]]
    pending = (await client.get("/api/approbations/a-approuver", headers=president.headers)).json()["content"]
    assert [(d["genre"], d["chemin"]) for d in pending] == [("ECRITURE", f"{URL}/{demande['id']}")]
    done = await client.post(f"{URL}/{demande['id']}/approuver", headers=president.headers,
                             json={"commentaire": "Facture vue"})
    assert done.status_code == 200, done.text
    out = done.json()
    assert out["statut"] == "APPROUVEE" and out["numeroPiece"].startswith("CAIS-") and out["roleDecideur"]
    assert await solde(db, org, "571") == Decimal("45000")
    entry = (await client.get(f"/api/comptabilite/ecritures/{out['ecritureId']}", headers=auditor.headers)).json()
    assert entry["creePar"] == demande["demandePar"] != out["decidePar"]
    trace = (await db.execute(select(AuditLog.description).where(AuditLog.entite_id == out["ecritureId"]))).scalar()
    assert demande["demandePar"] in trace and out["decidePar"] in trace
    replay = await client.post("/api/comptabilite/ecritures", headers={**treasurer.headers, "Idempotency-Key": "e-1"},
                               json=_depense(cai, comptes, "30000"))
    assert replay.status_code == 202 and replay.json()["id"] == demande["id"]


async def test_approval_checks_the_treasury_again_and_refusals_book_nothing(client, factory, db):
    org, treasurer, president, admin_org, _, _, comptes, cai = await _bureau(client, factory, db)
    first = (await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                               json=_depense(cai, comptes, "50000"))).json()
    second = (await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                                json=_depense(cai, comptes, "50000"))).json()
    assert (await client.post(f"{URL}/{first['id']}/approuver", headers=president.headers, json={})).status_code == 200
    late = await client.post(f"{URL}/{second['id']}/approuver", headers=admin_org.headers, json={})
    assert late.status_code == 400 and "Solde insuffisant" in late.json()["detail"], late.text
    assert (await client.get(f"{URL}/{second['id']}", headers=treasurer.headers)).json()["statut"] == "EN_ATTENTE"
    rejected = await client.post(f"{URL}/{second['id']}/rejeter", headers=president.headers,
                                 json={"commentaire": "La caisse ne le permet plus"})
    assert rejected.status_code == 200 and rejected.json()["statut"] == "REJETEE"
    third = (await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                               json=_depense(cai, comptes, "1000"))).json()
    assert (await client.post(f"{URL}/{third['id']}/retirer", headers=president.headers)).status_code == 403
    withdrawn = await client.post(f"{URL}/{third['id']}/retirer", headers=treasurer.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["statut"] == "RETIREE"
    assert await solde(db, org, "571") == Decimal("25000")


async def test_what_is_controlled(client, factory, db):
    org, treasurer, president, _, _, _, comptes, cai = await _bureau(client, factory, db)
    h = treasurer.headers
    # No treasury, no members' credit, no mark: one person's act, booked at once (200).
    free = await client.post("/api/comptabilite/ecritures", headers=h, json=ecriture(
        cai["id"], [(comptes["658"], "500", "0"), (comptes["7581"], "0", "500")], TODAY))
    assert free.status_code == 200 and free.json()["numeroPiece"], free.text
    avances = await client.post("/api/comptabilite/comptes", headers=h, json={
        "organisationId": str(org.id), "numeroCompte": "41911", "libelle": "Avances des membres (détail)"})
    credit = await client.post("/api/comptabilite/ecritures", headers=h, json=ecriture(
        cai["id"], [(comptes["658"], "500", "0"), (avances.json()["id"], "0", "500")], TODAY))
    assert credit.status_code == 202, credit.text
    # An account the organisation marks: its entries wait too; lifting the mark is the president's.
    marked = await client.put(f"/api/comptabilite/comptes/{comptes['658']}", headers=h, json={"sousControle": True})
    assert marked.status_code == 200 and marked.json()["sousControle"] is True
    now_controlled = await client.post("/api/comptabilite/ecritures", headers=h, json=ecriture(
        cai["id"], [(comptes["658"], "500", "0"), (comptes["7581"], "0", "500")], TODAY))
    assert now_controlled.status_code == 202, now_controlled.text
    lift = await client.put(f"/api/comptabilite/comptes/{comptes['658']}", headers=h, json={"sousControle": False})
    assert lift.status_code == 403 and "président" in lift.json()["detail"]
    lifted = await client.put(f"/api/comptabilite/comptes/{comptes['658']}", headers=president.headers,
                              json={"sousControle": False})
    assert lifted.status_code == 200 and lifted.json()["sousControle"] is False
