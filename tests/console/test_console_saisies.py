"""The console's screen for manual entries and opening balances under four eyes (issue 28): the president approves
what the treasurer typed, through the same service and idempotency as the API; the treasurer only withdraws."""

from __future__ import annotations

from tests.console.connexion import KEY, sign_in
from tests.livres import solde
from tests.saisies.test_quatre_yeux import TODAY, _bureau, _depense


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


async def test_the_treasurer_types_an_entry_in_the_console(client, factory, db):
    org, treasurer, president, _, _, _, comptes, cai = await _bureau(client, factory, db)
    csrf = await sign_in(client, treasurer, db)
    form = await client.get("/console/ecritures/nouvelle")
    assert form.status_code == 200 and "571" in form.text and "(sous contrôle)" in form.text
    key = KEY.search(form.text).group(1)
    base = {"csrf": csrf, "idempotency_key": key, "journal": cai["id"], "date": TODAY, "libelle": "Don en nature",
            "piece": "PV-12"}
    # Unbalanced: the form again with the API's reason and what was typed.
    refused = await client.post("/console/ecritures/nouvelle", data={
        **base, "compte_0": comptes["658"], "debit_0": "500", "compte_1": comptes["7581"], "credit_1": "400"})
    assert refused.status_code == 400 and "Don en nature" in refused.text and "PV-12" in refused.text
    free = await client.post("/console/ecritures/nouvelle", data={
        **base, "compte_0": comptes["658"], "debit_0": "500", "compte_1": comptes["7581"], "credit_1": "500"})
    assert free.status_code == 303 and "fait=ecriture" in free.headers["location"], free.text
    # Touching the cash box: a request, listed for the president.
    form = await client.get("/console/ecritures/nouvelle")
    cash = await client.post("/console/ecritures/nouvelle", data={
        **base, "idempotency_key": KEY.search(form.text).group(1), "libelle": "Achat de fournitures",
        "compte_0": comptes["6588"], "debit_0": "3000", "compte_1": comptes["571"], "credit_1": "3000"})
    assert cash.status_code == 303 and "fait=demandee" in cash.headers["location"], cash.text
    assert await solde(db, org, "571") == 75000
    listed = await client.get(f"/api/comptabilite/demandes-ecritures?organisationId={org.id}",
                              headers=president.headers)
    assert [d["libelle"] for d in listed.json()] == ["Achat de fournitures"]



async def test_the_treasurer_opens_an_account_and_types_amounts_as_people_write_them(client, factory, db):
    """Bank fees the statement shows need an account the chart lacks (631): the entry form opens it, through the
    API's service; its amounts take « 1 500 » as the counter does."""
    org, treasurer, _, _, _, _, comptes, cai = await _bureau(client, factory, db)
    csrf = await sign_in(client, treasurer, db)
    refused = await client.post("/console/comptes", data={"csrf": csrf, "numero_compte": "0631",
                                                          "libelle_compte": "Frais bancaires"})
    assert refused.status_code == 400 and 'aria-describedby="raison-numero_compte"' in refused.text, refused.text
    assert 'value="Frais bancaires"' in refused.text  # what was typed comes back
    opened = await client.post("/console/comptes", data={"csrf": csrf, "numero_compte": "631",
                                                         "libelle_compte": "Frais bancaires"})
    assert opened.status_code == 303 and opened.headers["location"].endswith("/ecritures/nouvelle?ouvert=631")
    again = await client.post("/console/comptes", data={"csrf": csrf, "numero_compte": "631",
                                                        "libelle_compte": "Frais bancaires"})
    assert again.status_code == 409 and "existe déjà" in again.text
    chart = await client.get(f"/api/comptabilite/comptes?organisationId={org.id}", headers=treasurer.headers)
    frais = next(c for c in chart.json() if c["numeroCompte"] == "631")
    assert frais["classe"] == 6 and frais["actif"]
    form = await client.get("/console/ecritures/nouvelle?ouvert=631")
    assert "Compte 631 ouvert" in form.text and "631 Frais bancaires" in form.text
    booked = await client.post("/console/ecritures/nouvelle", data={
        "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "journal": cai["id"], "date": TODAY,
        "libelle": "Frais de tenue de compte", "compte_0": frais["id"], "debit_0": "1 500",
        "compte_1": comptes["571"], "credit_1": "1\u202f500"})
    assert booked.status_code == 303 and "fait=demandee" in booked.headers["location"], booked.text
    listed = await client.get(f"/api/comptabilite/demandes-ecritures?organisationId={org.id}",
                              headers=treasurer.headers)
    lignes = listed.json()[0]["lignes"]
    assert sorted((str(ligne["debit"]), str(ligne["credit"])) for ligne in lignes) == [("0.00", "1500.00"),
                                                                                     ("1500.00", "0.00")]
