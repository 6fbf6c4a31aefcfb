"""From the Wave statement's page, the treasurer books an unknown line to an account: a four-eyes entry request
(the API's operation); once a second person approves, the next reconciliation counts the line."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.console.connexion import KEY, sign_in
from tests.wave.test_rapprochement_directs import EN_TETE


async def test_an_unknown_line_is_booked_from_the_statement_page(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    dons = (await client.post("/api/comptabilite/comptes", headers=treasurer.headers, json={
        "organisationId": str(org.id), "numeroCompte": "7581", "libelle": "Dons reçus"})).json()
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    csv_text = EN_TETE + f"{now};T_DONCONSOLE1;merchant_payment;4950;50;4950;XOF;;\n"
    releve = (await client.post("/api/wave/releves", headers=treasurer.headers, data={"organisationId": str(org.id)},
                                files={"fichier": ("releve.csv", csv_text.encode(), "text/csv")})).json()["id"]
    csrf = await sign_in(client, treasurer, db)
    page = await client.get(f"/console/wave/releves/{releve}")
    done = await client.post(f"/console/wave/releves/{releve}/rapprocher",
                             data={"csrf": csrf, "idempotency_key": KEY.search(page.text).group(1)})
    assert done.status_code == 303, done.text
    page = await client.get(f"/console/wave/releves/{releve}")
    assert "Lignes inconnues" in page.text and "T_DONCONSOLE1" in page.text and "7581 Dons reçus" in page.text
    (ligne,) = (await client.get(f"/api/wave/releves/{releve}/lignes", headers=treasurer.headers)).json()["content"]
    booked = await client.post(f"/console/wave/releves/{releve}/lignes/{ligne['id']}/comptabiliser", data={
        "csrf": csrf, "idempotency_key": f"{KEY.search(page.text).group(1)}-{ligne['id']}", "compte": dons["id"],
        "libelle": "Don anonyme reçu sur le numéro Wave"})
    assert booked.status_code == 303 and "fait=comptabilisee" in booked.headers["location"], booked.text
    (demande,) = (await client.get("/api/comptabilite/demandes-ecritures", headers=president.headers,
                                   params={"organisationId": str(org.id)})).json()
    assert demande["pieceReference"] == "WAVE-T_DONCONSOLE1" and demande["montant"] == "5000.00"
    approved = await client.post(f"/api/comptabilite/demandes-ecritures/{demande['id']}/approuver",
                                 headers=president.headers, json={})
    assert approved.status_code == 200, approved.text
    again = (await client.post(f"/api/wave/releves/{releve}/rapprocher",
                               headers={**treasurer.headers, "Idempotency-Key": "r-2"})).json()
    assert (again["lignesInconnues"], again["lignesRapprochees"]) == (0, 1)
