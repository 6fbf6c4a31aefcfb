"""The external auditor (COMMISSAIRE_AUX_COMPTES) reads every four-eyes request of his organisation and its
decisions — finance approvals, reopening requests, undo requests — and decides none of them (issue 28, item 8).
The « à décider » list is not his: he decides nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories.cotisations import cotisation
from tests.factories.finance import bureau, seuils

APPROBATIONS = "/api/finance/approbations"
REOUVERTURES = "/api/comptabilite/verrouillage/deverrouillages"
ANNULATIONS = "/api/annulations"


async def _requests(client, factory, db, b):
    """One decided request of each kind (the decision is what the auditor reads), and one still pending."""
    await seuils(client, factory, versement="50000")
    body = {"organisationId": str(b.org.id), "montant": "60000", "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat d'un groupe électrogène", "beneficiaireNom": "Quincaillerie Sow"}
    versement = (await client.post("/api/versements", headers=b.tresorier.headers, json=body)).json()
    [approbation] = (await client.get(APPROBATIONS, headers=b.tresorier.headers,
                                      params={"objetId": versement["id"]})).json()["content"]
    decided = await client.post(f"{APPROBATIONS}/{approbation['id']}/approuver", headers=b.president.headers)
    assert decided.status_code == 200, decided.text

    lock = (datetime.now(UTC).date().replace(day=1) - timedelta(days=1))
    locked = await client.put("/api/comptabilite/verrouillage", headers=b.tresorier.headers,
                              json={"organisationId": str(b.org.id), "dateVerrouillage": lock.isoformat()})
    assert locked.status_code == 200, locked.text
    reouverture = await client.post(REOUVERTURES, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "dateVerrouillage": (lock - timedelta(days=40)).isoformat(),
        "motif": "Facture du mois oubliée"})
    assert reouverture.status_code == 201, reouverture.text
    rejected = await client.post(f"{REOUVERTURES}/{reouverture.json()['id']}/rejeter", headers=b.president.headers,
                                 json={"commentaire": "Pas de pièce justificative"})
    assert rejected.status_code == 200, rejected.text

    dues = await cotisation(db, b.membre.membre, b.org, "2500")
    paid = await client.post("/api/paiements", headers=b.tresorier.headers, json={
        "membreId": str(b.membre.membre.id), "organisationId": str(b.org.id), "montant": "2500",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    annulation = await client.post(f"/api/paiements/{paid.json()['id']}/annuler", headers=b.tresorier.headers,
                                   json={"motif": "Saisie en double"})
    assert annulation.status_code == 202, annulation.text
    return approbation["id"], reouverture.json()["id"], annulation.json()["id"]


async def test_the_auditor_reads_every_request_and_its_decision_and_decides_none(client, factory, db):
    b = await bureau(factory)
    approbation, reouverture, annulation = await _requests(client, factory, db, b)
    auditor = await factory.actor(["USER"], organisation=b.org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    h, org = auditor.headers, {"organisationId": str(b.org.id)}

    listed = await client.get(APPROBATIONS, headers=h, params=org)
    assert listed.status_code == 200, listed.text
    assert [a["id"] for a in listed.json()["content"]] == [approbation]
    one = await client.get(f"{APPROBATIONS}/{approbation}", headers=h)
    assert one.status_code == 200, one.text
    assert one.json()["statut"] == "APPROUVEE"
    assert [d["approbateur"] for d in one.json()["decisions"]] == [b.president.user.email]

    reouvertures = await client.get(REOUVERTURES, headers=h, params=org)
    assert reouvertures.status_code == 200 and [r["id"] for r in reouvertures.json()] == [reouverture]
    one = await client.get(f"{REOUVERTURES}/{reouverture}", headers=h)
    assert one.status_code == 200 and one.json()["statut"] == "REJETEE"
    assert one.json()["commentaire"] == "Pas de pièce justificative"

    annulations = await client.get(ANNULATIONS, headers=h, params=org)
    assert annulations.status_code == 200 and [a["id"] for a in annulations.json()] == [annulation]
    one = await client.get(f"{ANNULATIONS}/{annulation}", headers=h)
    assert one.status_code == 200 and one.json()["statut"] == "EN_ATTENTE"

    # He decides nothing, and the list of what one may decide is not his.
    assert (await client.get(f"{APPROBATIONS}/a-decider", headers=h)).status_code == 403
    assert (await client.get("/api/approbations/a-approuver", headers=h)).status_code == 403
    for url, body in ((f"{APPROBATIONS}/{approbation}/approuver", None),
                      (f"{APPROBATIONS}/{approbation}/rejeter", {"commentaire": "Non"}),
                      (f"{APPROBATIONS}/{approbation}/annuler", {"motif": "Non"}),
                      (f"{REOUVERTURES}/{reouverture}/approuver", {}),
                      (f"{REOUVERTURES}/{reouverture}/rejeter", {"commentaire": "Non"}),
                      (f"{REOUVERTURES}/{reouverture}/annuler", {}),
                      (REOUVERTURES, {"organisationId": str(b.org.id), "dateVerrouillage": "2020-01-31",
                                      "motif": "Le commissaire voudrait rouvrir"}),
                      (f"{ANNULATIONS}/{annulation}/approuver", {}),
                      (f"{ANNULATIONS}/{annulation}/rejeter", {"commentaire": "Non fondé"}),
                      (f"{ANNULATIONS}/{annulation}/retirer", {})):
        refused = await client.post(url, headers=h, json=body)
        assert refused.status_code == 403, (url, refused.status_code, refused.text)
    still = await client.get(f"{ANNULATIONS}/{annulation}", headers=h)
    assert still.json()["statut"] == "EN_ATTENTE"


async def test_an_auditor_of_another_organisation_reads_none_of_them(client, factory, db):
    b = await bureau(factory)
    approbation, reouverture, annulation = await _requests(client, factory, db, b)
    elsewhere = await factory.organisation()
    auditor = await factory.actor(["USER"], organisation=elsewhere, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    for url in (f"{APPROBATIONS}/{approbation}", f"{REOUVERTURES}/{reouverture}", f"{ANNULATIONS}/{annulation}"):
        assert (await client.get(url, headers=auditor.headers)).status_code == 404, url
    listed = await client.get(APPROBATIONS, headers=auditor.headers, params={"organisationId": str(b.org.id)})
    assert listed.status_code in (200, 404) and (listed.status_code == 404 or listed.json()["content"] == [])
