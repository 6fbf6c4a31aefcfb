from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.finance import bureau, plan, poster
from unionflow.models import AuditLog

URL = "/api/finance/budgets"


def _budget(b, p, annee=2026, **extra):
    return {"organisationId": str(b.org.id), "annee": annee, "libelle": f"Budget {annee}", "lignes": [
        {"libelle": "Fournitures", "compteId": p["fournitures"]["id"], "montantPrevu": "100000"},
        {"libelle": "Personnel", "prefixeCompte": "66", "montantPrevu": "500000"},
        {"libelle": "Cotisations", "compteId": p["cotisations"]["id"], "montantPrevu": "800000"},
        {"libelle": "Transport", "compteId": p["transport"]["id"], "montantPrevu": "0"},
    ], **extra}


async def test_create_budget_checks_lines_year_and_scope(client, factory, db):
    b = await bureau(factory)
    p = await plan(client, b)
    created = await client.post(URL, headers=b.tresorier.headers, json=_budget(b, p))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["statut"] == "BROUILLON" and body["dateDebut"] == "2026-01-01" and body["dateFin"] == "2026-12-31"
    assert [ligne["nature"] for ligne in body["lignes"]] == ["DEPENSE", "DEPENSE", "RECETTE", "DEPENSE"]
    assert body["lignes"][0]["numeroCompte"] == "6041" and body["lignes"][1]["prefixeCompte"] == "66"
    assert (body["totalDepensesPrevues"], body["totalRecettesPrevues"]) == ("600000.00", "800000.00")

    assert (await client.post(URL, headers=b.tresorier.headers, json=_budget(b, p))).status_code == 409
    overlap = _budget(b, p, 2027)
    overlap["lignes"].append({"libelle": "Salaires", "compteId": p["salaires"]["id"], "montantPrevu": "1"})
    r = await client.post(URL, headers=b.tresorier.headers, json=overlap)
    assert r.status_code == 400 and "recoupe" in r.text
    nested = _budget(b, p, 2027)
    nested["lignes"].append({"libelle": "Charges", "prefixeCompte": "6", "montantPrevu": "1"})
    assert (await client.post(URL, headers=b.tresorier.headers, json=nested)).status_code == 400
    both = _budget(b, p, 2027)
    both["lignes"][0]["prefixeCompte"] = "60"
    assert (await client.post(URL, headers=b.tresorier.headers, json=both)).status_code == 400
    negative = _budget(b, p, 2027)
    negative["lignes"][0]["montantPrevu"] = "-1"
    assert (await client.post(URL, headers=b.tresorier.headers, json=negative)).status_code == 400
    assert (await client.post(URL, headers=b.tresorier.headers,
                              json={**_budget(b, p, 2027), "statut": "APPROUVE"})).status_code == 400
    inverted = {**_budget(b, p, 2027), "dateDebut": "2027-06-01", "dateFin": "2027-01-01"}
    assert (await client.post(URL, headers=b.tresorier.headers, json=inverted)).status_code == 400

    other = await bureau(factory)
    foreign_account = _budget(other, p, 2026)
    r = await client.post(URL, headers=other.tresorier.headers, json=foreign_account)
    assert r.status_code == 400 and "compteId" in r.text
    assert (await client.post(URL, headers=other.tresorier.headers, json=_budget(b, p, 2027))).status_code == 404
    assert (await client.post(URL, headers=b.membre.headers, json=_budget(b, p, 2027))).status_code == 403
    assert (await client.post(URL, headers=b.president.headers, json=_budget(b, p, 2027))).status_code == 403

    assert (await client.get(f"{URL}/{body['id']}", headers=other.tresorier.headers)).status_code == 404
    assert (await client.get(f"{URL}/{body['id']}", headers=b.membre.headers)).status_code == 403
    assert (await client.get(f"{URL}/{uuid.uuid4()}", headers=b.president.headers)).status_code == 404
    listed = await client.get(URL, headers=b.president.headers, params={"annee": 2026})
    assert [x["id"] for x in listed.json()["content"]] == [body["id"]]
    assert (await client.get(URL, headers=other.tresorier.headers)).json()["totalElements"] == 0
    assert (await client.get(URL, headers=b.president.headers, params={"size": 0})).status_code == 400
    audited = (await db.execute(select(AuditLog).where(AuditLog.entite_id == body["id"]))).scalars().all()
    assert [(a.type_action, a.module) for a in audited] == [("CREER", "FINANCE")]


async def test_budget_lifecycle_and_four_eyes(client, factory, db):
    b = await bureau(factory)
    p = await plan(client, b)
    empty = (await client.post(URL, headers=b.admin_org.headers,
                               json={**_budget(b, p, 2025), "lignes": []})).json()
    assert (await client.post(f"{URL}/{empty['id']}/soumettre", headers=b.admin_org.headers)).status_code == 400
    assert (await client.delete(f"{URL}/{empty['id']}", headers=b.tresorier.headers)).status_code == 204
    assert (await client.get(f"{URL}/{empty['id']}", headers=b.tresorier.headers)).status_code == 404

    budget = (await client.post(URL, headers=b.admin_org.headers, json=_budget(b, p))).json()
    url = f"{URL}/{budget['id']}"
    assert (await client.post(f"{url}/approuver", headers=b.president.headers)).status_code == 400
    edited = await client.put(url, headers=b.admin_org.headers, json={
        "libelle": "Budget 2026 révisé",
        "lignes": [{"libelle": "Fournitures", "compteId": p["fournitures"]["id"], "montantPrevu": "120000"}]})
    assert edited.status_code == 200 and len(edited.json()["lignes"]) == 1
    assert edited.json()["totalDepensesPrevues"] == "120000.00"
    submitted = await client.post(f"{url}/soumettre", headers=b.admin_org.headers)
    assert submitted.json()["statut"] == "SOUMIS"
    assert (await client.put(url, headers=b.admin_org.headers, json={"libelle": "Autre"})).status_code == 400
    # Four eyes: whoever submitted cannot approve, even holding a deciding role; a treasurer has no such role.
    own = await client.post(f"{url}/approuver", headers=b.admin_org.headers)
    assert own.status_code == 403 and "quatre yeux" in own.text
    assert (await client.post(f"{url}/approuver", headers=b.tresorier.headers)).status_code == 403
    outsider = await bureau(factory)
    assert (await client.post(f"{url}/approuver", headers=outsider.president.headers)).status_code == 404

    no_reason = await client.post(f"{url}/rejeter", headers=b.president.headers, json={})
    assert no_reason.status_code == 400
    rejected = await client.post(f"{url}/rejeter", headers=b.president.headers,
                                 json={"commentaire": "Prévoir le transport"})
    assert rejected.json()["statut"] == "BROUILLON" and rejected.json()["commentaire"] == "Prévoir le transport"
    await client.post(f"{url}/soumettre", headers=b.admin_org.headers)
    assert (await client.post(f"{url}/cloturer", headers=b.tresorier.headers)).status_code == 400
    approved = await client.post(f"{url}/approuver", headers=b.president.headers, json={"commentaire": "OK AG"})
    assert approved.status_code == 200, approved.text
    assert approved.json()["statut"] == "APPROUVE" and approved.json()["approuvePar"]
    assert (await client.delete(url, headers=b.tresorier.headers)).status_code == 400
    closed = await client.post(f"{url}/cloturer", headers=b.tresorier.headers)
    assert closed.json()["statut"] == "CLOTURE" and closed.json()["dateCloture"]
    assert (await client.post(f"{url}/cloturer", headers=b.tresorier.headers)).status_code == 400
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == budget["id"])
                                     .order_by(AuditLog.date_heure))).scalars())
    assert actions == ["CREER", "MODIFIER", "SOUMETTRE", "REJETER", "SOUMETTRE", "APPROUVER", "CLORE"]


async def test_execution_sums_posted_entries_of_the_period(client, factory):
    b = await bureau(factory)
    p = await plan(client, b)
    budget = (await client.post(URL, headers=b.tresorier.headers, json=_budget(b, p))).json()
    await poster(client, b, p, "2026-02-10", [("fournitures", "60000", "0"), ("banque", "0", "60000")])
    await poster(client, b, p, "2026-03-10", [("fournitures", "55000", "0"), ("banque", "0", "55000")])
    # A refund from the supplier lowers the realised expense.
    await poster(client, b, p, "2026-03-20", [("banque", "5000", "0"), ("fournitures", "0", "5000")])
    await poster(client, b, p, "2026-04-30", [("salaires", "200000", "0"), ("primes", "50000", "0"),
                                               ("banque", "0", "250000")])
    await poster(client, b, p, "2026-05-05", [("banque", "300000", "0"), ("cotisations", "0", "300000")])
    await poster(client, b, p, "2025-12-31", [("fournitures", "99999", "0"), ("banque", "0", "99999")])
    await poster(client, b, p, "2026-06-01", [("transport", "7000", "0"), ("banque", "0", "7000")])
    other = await bureau(factory)
    other_plan = await plan(client, other)
    await poster(client, other, other_plan, "2026-02-10", [("fournitures", "1000", "0"), ("banque", "0", "1000")])

    r = await client.get(f"{URL}/{budget['id']}/execution", headers=b.president.headers)
    assert r.status_code == 200, r.text
    lignes = {x["libelle"]: x for x in r.json()["lignes"]}
    f = lignes["Fournitures"]
    assert (f["montantRealise"], f["ecart"], f["tauxConsommation"], f["depassement"]) == (
        "110000.00", "-10000.00", "110.00", True)
    assert (lignes["Personnel"]["montantRealise"], lignes["Personnel"]["tauxConsommation"]) == ("250000.00", "50.00")
    c = lignes["Cotisations"]
    assert (c["nature"], c["montantRealise"], c["ecart"], c["depassement"]) == (
        "RECETTE", "300000.00", "500000.00", False)
    assert lignes["Transport"]["tauxConsommation"] is None and lignes["Transport"]["montantRealise"] == "7000.00"
    t = r.json()["totaux"]
    assert (t["depensesPrevues"], t["depensesRealisees"], t["recettesRealisees"], t["soldeRealise"]) == (
        "600000.00", "367000.00", "300000.00", "-67000.00")
    assert (await client.get(f"{URL}/{budget['id']}/execution", headers=other.president.headers)).status_code == 404
