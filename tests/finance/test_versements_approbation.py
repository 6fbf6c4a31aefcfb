"""Payouts at or above the threshold need an approved request before they are confirmed."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.finance import bureau, seuils
from unionflow.models import AuditLog

URL = "/api/finance/approbations"


def _versement(b, montant):
    return {"organisationId": str(b.org.id), "montant": montant, "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat de chaises pour la salle", "beneficiaireNom": "Menuiserie Ndiaye"}


async def _approbation_of(client, b, versement_id):
    listed = await client.get(URL, headers=b.tresorier.headers,
                              params={"typeObjet": "VERSEMENT", "objetId": versement_id})
    return listed.json()["content"]


async def test_large_payout_waits_for_approval(client, factory, db):
    b = await bureau(factory)
    await seuils(client, factory, versement="50000")
    small = (await client.post("/api/versements", headers=b.tresorier.headers, json=_versement(b, "49999"))).json()
    assert await _approbation_of(client, b, small["id"]) == []
    done = await client.post(f"/api/versements/{small['id']}/confirmer", headers=b.admin_org.headers,
                             json={"referenceExterne": "CHQ-1"})
    assert done.json()["statut"] == "REUSSI"

    big = await client.post("/api/versements", headers=b.tresorier.headers, json=_versement(b, "50000"))
    assert big.status_code == 201, big.text
    vid = big.json()["id"]
    [approbation] = await _approbation_of(client, b, vid)
    assert (approbation["statut"], approbation["montant"], approbation["demandePar"]) == (
        "EN_ATTENTE", "50000.00", b.tresorier.user.email)
    early = await client.post(f"/api/versements/{vid}/confirmer", headers=b.admin_org.headers,
                              json={"referenceExterne": "CHQ-2"})
    assert early.status_code == 400 and approbation["numero"] in early.text
    assert (await client.post(f"{URL}/{approbation['id']}/approuver", headers=b.president.headers)).status_code == 200
    confirmed = await client.post(f"/api/versements/{vid}/confirmer", headers=b.admin_org.headers,
                                  json={"referenceExterne": "CHQ-2"})
    assert confirmed.status_code == 200 and confirmed.json()["statut"] == "REUSSI"
    audited = set((await db.execute(select(AuditLog.module).where(AuditLog.entite_id == approbation["id"]))).scalars())
    assert audited == {"FINANCE"}


async def test_rejected_or_cancelled_payout_and_lowered_threshold(client, factory):
    b = await bureau(factory)
    await seuils(client, factory, versement="50000")
    vid = (await client.post("/api/versements", headers=b.tresorier.headers, json=_versement(b, "80000"))).json()["id"]
    [approbation] = await _approbation_of(client, b, vid)
    await client.post(f"{URL}/{approbation['id']}/rejeter", headers=b.admin_org.headers,
                      json={"commentaire": "Devis trop cher"})
    refused = await client.post(f"/api/versements/{vid}/confirmer", headers=b.admin_org.headers,
                                json={"referenceExterne": "CHQ-3"})
    assert refused.status_code == 400 and "REJETEE" in refused.text

    other = (await client.post("/api/versements", headers=b.tresorier.headers, json=_versement(b, "60000"))).json()
    cancelled = await client.post(f"/api/versements/{other['id']}/annuler", headers=b.tresorier.headers,
                                  json={"motif": "Fournisseur changé"})
    assert cancelled.json()["statut"] == "ANNULE"
    listed = await client.get(URL, headers=b.tresorier.headers, params={"objetId": other["id"]})
    assert [a["statut"] for a in listed.json()["content"]] == ["ANNULEE"]

    # Created under the threshold, which is lowered before the confirmation: an approval is now required.
    late = (await client.post("/api/versements", headers=b.tresorier.headers, json=_versement(b, "30000"))).json()
    await seuils(client, factory, versement="20000")
    blocked = await client.post(f"/api/versements/{late['id']}/confirmer", headers=b.admin_org.headers,
                                json={"referenceExterne": "CHQ-4"})
    assert blocked.status_code == 400 and "aucune demande" in blocked.text
    asked = await client.post(URL, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "typeObjet": "VERSEMENT", "objetId": late["id"], "motif": "Chaises"})
    assert asked.status_code == 201 and asked.json()["montant"] == "30000.00"
    wrong_amount = await client.post(URL, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "typeObjet": "VERSEMENT", "objetId": late["id"], "motif": "Chaises",
        "montant": "1"})
    assert wrong_amount.status_code == 400
    await client.post(f"{URL}/{asked.json()['id']}/approuver", headers=b.admin_org.headers)
    ok = await client.post(f"/api/versements/{late['id']}/confirmer", headers=b.admin_org.headers,
                           json={"referenceExterne": "CHQ-4"})
    assert ok.json()["statut"] == "REUSSI"
    sent = await client.post(URL, headers=b.tresorier.headers, json={
        "organisationId": str(b.org.id), "typeObjet": "VERSEMENT", "objetId": late["id"], "motif": "Encore"})
    assert sent.status_code == 400
