"""The console's screen for manual entries and opening balances under four eyes (issue 28): the president approves
what the treasurer typed, through the same service and idempotency as the API; the treasurer only withdraws."""

from __future__ import annotations

from tests.console.helpers import KEY, sign_in
from tests.saisies.test_quatre_yeux import _bureau, _depense
from tests.tresoreries.helpers import solde


async def test_the_president_approves_in_the_console_what_the_treasurer_typed(client, factory, db):
    org, treasurer, president, _, _, _, comptes, cai = await _bureau(client, factory, db)
    asked = await client.post("/api/comptabilite/ecritures", headers=treasurer.headers,
                              json=_depense(cai, comptes, "20000"))
    assert asked.status_code == 202, asked.text
    demande = asked.json()
    csrf = await sign_in(client, treasurer, db)
    page = await client.get("/console/ecritures-a-approuver")
    assert page.status_code == 200 and "Retirer ma demande" in page.text
    assert f"/demandes/ecritures/{demande['id']}/approuver" not in page.text
    forced = await client.post(f"/console/demandes/ecritures/{demande['id']}/approuver",
                               data={"csrf": csrf, "idempotency_key": "forced-e1"})
    assert forced.status_code == 403 and "quatre yeux" in forced.text

    client.cookies.clear()
    csrf = await sign_in(client, president, db)
    todo = await client.get("/console/a-approuver")
    assert "Écriture manuelle" in todo.text and "/ecritures-a-approuver" in todo.text
    page = await client.get("/console/ecritures-a-approuver")
    assert f"/demandes/ecritures/{demande['id']}/approuver" in page.text and "571" in page.text
    approved = await client.post(f"/console/demandes/ecritures/{demande['id']}/approuver", data={
        "csrf": csrf, "idempotency_key": f"{KEY.search(page.text).group(1)}-{demande['id']}",
        "commentaire": "Facture du loyer vue"})
    assert approved.status_code == 303, approved.text
    assert await solde(db, org, "571") == 75000 - 20000
    after = await client.get("/console/ecritures-a-approuver?fait=approuver")
    assert "est passée" in after.text and "CAIS-" in after.text
    # The API answers the same request as decided (one request, one decision).
    got = await client.get(f"/api/comptabilite/demandes-ecritures/{demande['id']}", headers=treasurer.headers)
    assert got.json()["statut"] == "APPROUVEE" and got.json()["commentaire"] == "Facture du loyer vue"
