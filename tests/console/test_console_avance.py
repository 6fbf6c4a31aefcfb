"""The counter takes an advance: 6,000 on 2,000 owed, the rest kept as the member's credit (the API's `avance`);
without « Avance » the form comes back with the reason; a member who owes nothing can pay ahead."""

from __future__ import annotations

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation


async def test_the_counter_takes_an_advance(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, membre.membre, org, 2000)
    csrf = await sign_in(client, tresorier, db)
    url = f"/console/membres/{membre.membre.id}/encaisser"
    form = await client.get(url)
    body = {"csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "cotisation": str(dues.id),
            "montant": "6000", "methode": "ESPECES"}
    refused = await client.post(url, data=body)
    assert refused.status_code == 400 and 'value="6000"' in refused.text and 'id="avance"' in refused.text
    paid = await client.post(url, data={**body, "avance": "1"})
    assert paid.status_code == 303, paid.text
    account = (await client.get("/api/compte-adherent/me", headers=membre.headers)).json()
    assert account["credit"] == "4000.00" and account["cotisations"]["montantPaye"] == "2000.00"
    # Nothing owed: the form says the money will be his advance, « Avance » already ticked.
    form = await client.get(url)
    assert "sera son avance" in form.text and 'name="avance" value="1" checked' in form.text
    ahead = await client.post(url, data={"csrf": csrf, "idempotency_key": KEY.search(form.text).group(1),
                                         "montant": "5000", "methode": "ESPECES", "avance": "1"})
    assert ahead.status_code == 303, ahead.text
    account = (await client.get("/api/compte-adherent/me", headers=membre.headers)).json()
    assert account["credit"] == "9000.00"
