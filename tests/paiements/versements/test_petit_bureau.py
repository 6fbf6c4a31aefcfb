"""A small bureau: one treasurer and a president pay out with four eyes; the external auditor reads the credit ledger
and the LCB-FT alerts without being able to act on them."""

from __future__ import annotations

import uuid

from tests.paiements.versements.test_versements import _org_with_collected_dues, _payout


async def test_a_bureau_of_one_treasurer_and_a_president_pays_out(client, factory, db, wave):
    org, treasurer, _, _ = await _org_with_collected_dues(client, factory, db)
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    manual = {**_payout(org, "3000"), "mode": "MANUEL", "beneficiaireTelephone": None}
    created = await client.post("/api/versements", headers=treasurer.headers, json=manual)
    assert created.status_code == 201, created.text
    url = f"/api/versements/{created.json()['id']}/confirmer"
    own = await client.post(url, headers=treasurer.headers, json={"referenceExterne": "ESP-0001"})
    assert own.status_code == 403  # four eyes: never the one who prepared it
    done = await client.post(url, headers=president.headers, json={"referenceExterne": "ESP-0001"})
    assert done.status_code == 200, done.text
    assert done.json()["statut"] == "REUSSI"


async def test_a_president_cannot_confirm_a_payout_he_prepared_elsewhere_nor_one_of_another_organisation(
        client, factory, db, wave):
    org, treasurer, _, _ = await _org_with_collected_dues(client, factory, db)
    other = await factory.organisation()
    president_elsewhere = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "PRESIDENT"])
    manual = {**_payout(org, "3000"), "mode": "MANUEL", "beneficiaireTelephone": None}
    created = (await client.post("/api/versements", headers=treasurer.headers, json=manual)).json()
    refused = await client.post(f"/api/versements/{created['id']}/confirmer", headers=president_elsewhere.headers,
                                json={"referenceExterne": "ESP-0002"})
    assert refused.status_code in (403, 404)


async def test_the_auditor_reads_the_credit_ledger_and_the_alerts_but_does_not_treat_them(client, factory, db, wave):
    org, _, _, member = await _org_with_collected_dues(client, factory, db)
    auditor = await factory.actor(["USER"], organisation=org, org_roles=["COMMISSAIRE_AUX_COMPTES"])
    avoir = await client.get("/api/avoirs", headers=auditor.headers,
                             params={"membreId": str(member.membre.id), "organisationId": str(org.id)})
    assert avoir.status_code == 200, avoir.text
    assert avoir.json()["solde"] is not None
    alertes = await client.get("/api/alertes-lcb-ft", headers=auditor.headers, params={"organisationId": str(org.id)})
    assert alertes.status_code == 200, alertes.text
    compte = await client.get("/api/alertes-lcb-ft/stats/non-traitees", headers=auditor.headers)
    assert compte.status_code == 200, compte.text
    traiter = await client.post(f"/api/alertes-lcb-ft/{uuid.uuid4()}/traiter", headers=auditor.headers,
                                json={"decision": "SANS_SUITE", "commentaire": "Lu par le commissaire"})
    assert traiter.status_code == 403
    # A plain member still reads neither.
    assert (await client.get("/api/alertes-lcb-ft", headers=member.headers)).status_code == 403
