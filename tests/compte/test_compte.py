from __future__ import annotations

from datetime import date, timedelta

from tests.factories.cotisations import adhesion, cotisation
from unionflow.wave.simulateur import completed_event, signed_webhook

SECRET = "wave-test-webhook-secret"


async def test_member_account_overdue_credit_and_up_to_date_flag(client, factory, db, wave):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    late = await cotisation(db, member.membre, org, 2000, echeance=date.today() - timedelta(days=10))
    upcoming = await cotisation(db, member.membre, org, 3000, echeance=date.today() + timedelta(days=20))
    await cotisation(db, member.membre, org, 9999, statut="ANNULEE")
    await adhesion(db, member.membre, org, 1500)

    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    dues = account["cotisations"]
    assert (dues["nombreTotal"], dues["nombreEnRetard"], dues["montantDu"], dues["montantEnRetard"]) == (
        2, 1, "5000.00", "2000.00")
    assert account["aJour"] is False and account["fraisAdhesionRestants"] == "1500.00"
    assert account["solde"] == "-6500.00"
    assert {c["numeroReference"]: c["statut"] for c in account["cotisationsAPayer"]} == {
        late.numero_reference: "EN_RETARD", upcoming.numero_reference: "EN_ATTENTE"}

    # Wave session opened for the late dues, then the treasurer is paid the same dues in cash: when Wave
    # confirms, the money is not refused but kept as credit.
    checkout = (await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(late.id)}]})).json()
    cash = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": "2000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(late.id)}]})
    assert cash.status_code == 201
    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(checkout["checkoutId"])))
    assert (await client.post("/api/paiements/wave/webhook", content=raw, headers=headers)).json()[
        "resultat"] == "APPLIQUE"

    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    assert account["credit"] == "2000.00" and account["totalPaye"] == "4000.00"
    assert account["cotisations"]["nombreEnRetard"] == 0 and account["cotisations"]["montantPaye"] == "2000.00"
    assert account["aJour"] is False  # adhesion fee still unpaid
    assert account["solde"] == "-2500.00"  # 2000 credit − 3000 upcoming dues − 1500 fee

    other_org = await factory.organisation()
    assert (await client.get("/api/compte-adherent/me", headers=member.headers,
                             params={"organisationId": str(other_org.id)})).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get("/api/compte-adherent/me", headers=admin.headers)).status_code == 404
    assert (await client.get("/api/compte-adherent/me")).status_code == 401


async def test_member_dashboard(client, factory, db):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    await cotisation(db, member.membre, org, 1000, echeance=date.today() - timedelta(days=1))
    for days in (40, 10, 20):
        await cotisation(db, member.membre, org, 1000, echeance=date.today() + timedelta(days=days))
    dash = (await client.get("/api/dashboard/membre/me", headers=member.headers)).json()
    assert [o["organisationId"] for o in dash["organisations"]] == [str(org.id)]
    assert [c["dateEcheance"] for c in dash["prochainesEcheances"]] == sorted(
        (date.today() + timedelta(days=d)).isoformat() for d in (10, 20, 40))
    assert len(dash["cotisationsEnRetard"]) == 1 and dash["aJour"] is False
    treasurer_only = await factory.actor(["USER"], organisation=org, org_roles=["TRESORIER"])
    assert (await client.get("/api/dashboard/membre/me", headers=treasurer_only.headers)).status_code == 200
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    assert (await client.get("/api/dashboard/membre/me", headers=moderator.headers)).status_code == 403


async def test_organisation_dashboard(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    members = [await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"]) for _ in range(2)]
    paid = await cotisation(db, members[0].membre, org, 4000, echeance=date.today() - timedelta(days=1))
    await cotisation(db, members[1].membre, org, 6000, echeance=date.today() - timedelta(days=1))
    await cotisation(db, members[1].membre, org, 5000, echeance=date.today() + timedelta(days=400))
    fee = await adhesion(db, members[0].membre, org, 1000)
    response = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(members[0].membre.id), "organisationId": str(org.id), "montant": "5000",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(paid.id)}, {"adhesionId": str(fee.id)}]})
    assert response.status_code == 201
    dash = await client.get("/api/dashboard/organisation", headers=treasurer.headers)
    assert dash.status_code == 200, dash.text
    body = dash.json()
    assert body["nombreMembres"] == 3
    assert body["encaisseCotisationsMois"] == "4000.00" and body["encaisseCotisationsAnnee"] == "4000.00"
    assert body["encaisseAdhesionsAnnee"] == "1000.00"
    if date.today().year == (date.today() - timedelta(days=1)).year:
        assert body["tauxRecouvrement"] == "40.00"
    assert (body["nombreCotisationsEnRetard"], body["montantEnRetard"], body["nombreMembresEnRetard"]) == (
        1, "6000.00", 1)
    member = members[0]
    assert (await client.get("/api/dashboard/organisation", headers=member.headers)).status_code == 403
    other = await factory.organisation()
    assert (await client.get("/api/dashboard/organisation", headers=treasurer.headers,
                             params={"organisationId": str(other.id)})).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get("/api/dashboard/organisation", headers=admin.headers)).status_code == 400
    assert (await client.get("/api/dashboard/organisation", headers=admin.headers,
                             params={"organisationId": str(org.id)})).json()["nombreMembres"] == 3
