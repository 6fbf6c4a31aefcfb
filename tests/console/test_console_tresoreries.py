"""The treasuries screen (issue 20): the treasurer sees each treasury with its balance in the books and moves cash
to the bank through the same service as the API (two entries through 585, the cash box never below zero); the
president reads without the form; a member is refused the screen."""

from __future__ import annotations

from tests.console.connexion import KEY, sign_in
from tests.factories.tresoreries import declarer, org_avec_encaissement


async def test_the_treasurer_sees_balances_and_transfers(client, factory, db):
    org, treasurer, _, member = await org_avec_encaissement(client, factory, db, "20000")
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse du siège", "571"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque CBAO", "5211"))).json()
    client.cookies.clear()
    csrf = await sign_in(client, treasurer, db)
    page = await client.get("/console/tresoreries")
    assert page.status_code == 200, page.text
    assert "Caisse du siège" in page.text and "Banque CBAO" in page.text and "Virement interne" in page.text
    form = {"csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "source": caisse["id"],
            "destination": banque["id"], "montant": "15000", "libelle": "Dépôt de la caisse à la banque"}
    assert (await client.post("/console/tresoreries/virements", data={**form, "csrf": ""})).status_code == 403
    done = await client.post("/console/tresoreries/virements", data=form)
    assert done.status_code == 303, done.text
    again = await client.post("/console/tresoreries/virements", data=form)  # resubmitted form: same transfer
    assert again.status_code == 303 and again.headers["location"] == done.headers["location"]
    shown = await client.get(done.headers["location"])
    assert "enregistré" in shown.text
    soldes = {t["nom"]: t["solde"] for t in (await client.get(
        "/api/tresoreries", headers=treasurer.headers, params={"organisationId": str(org.id)})).json()}
    assert soldes == {"Caisse du siège": "5000.00", "Banque CBAO": "15000.00"}
    too_much = await client.post("/console/tresoreries/virements", data={
        **form, "idempotency_key": "autre-cle", "montant": "6000"})
    assert too_much.status_code == 400 and "5 000 FCFA" in too_much.text

    client.cookies.clear()
    await sign_in(client, president, db)
    read = await client.get("/console/tresoreries")
    assert read.status_code == 200 and "Caisse du siège" in read.text and "Virement interne" not in read.text
    client.cookies.clear()
    await sign_in(client, member, db)
    assert (await client.get("/console/tresoreries")).status_code == 403
