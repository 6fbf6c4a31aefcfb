"""An aid paid from the cash box: the payout form offers the treasury the money leaves from (the API's
`tresorerieId`); confirmed by another person, the cash box goes down and the bank does not move."""

from __future__ import annotations

from tests.console.connexion import KEY, sign_in
from tests.factories.finance import demande_aide
from tests.factories.tresoreries import declarer, org_avec_encaissement
from tests.livres import solde


async def test_an_aid_leaves_the_cash_box_chosen_in_the_form(client, factory, db):
    org, treasurer, president, member = await org_avec_encaissement(client, factory, db, "20000")
    # The cash box the payment went into (571), declared: its balance is that account's.
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    aide = await demande_aide(db, org, member.membre, accorde="5000")
    csrf = await sign_in(client, treasurer, db)
    page = await client.get("/console/aides")
    assert f"{caisse['nom']} (571)" in page.text
    prepared = await client.post("/console/versements", data={
        "csrf": csrf, "idempotency_key": f"{KEY.search(page.text).group(1)}-{aide.id}", "objet_type": "AIDE",
        "objet_id": str(aide.id), "motif": f"Aide {aide.numero_reference}", "beneficiaire_nom": "Awa Diop",
        "mode": "MANUEL", "montant": "5000", "tresorerie": caisse["id"]})
    assert prepared.status_code == 303, prepared.text
    (versement,) = [v for v in (await client.get("/api/versements", headers=treasurer.headers,
                                                 params={"organisationId": str(org.id)})).json()["content"]
                    if v["objetId"] == str(aide.id)]
    assert versement["tresorerieId"] == caisse["id"]
    confirmed = await client.post(f"/api/versements/{versement['id']}/confirmer", headers=president.headers,
                                  json={"referenceExterne": "DECHARGE-12"})
    assert confirmed.status_code == 200, confirmed.text
    assert await solde(db, org, "571") == 15000 and await solde(db, org, "521") == 0
