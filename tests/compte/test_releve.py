"""The member's statement of account, month by month: called (dues falling due), paid (money received for his dues),
running balance from the balance brought forward; ties to the account's figures."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from tests.factories.cotisations import cotisation

ANNEE = date.today().year


async def _payer(client, treasurer, org, member, dues, montant: str, jour: date) -> dict:
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant, "methode": "ESPECES",
        "datePaiement": f"{jour.isoformat()}T10:00:00Z", "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return paid.json()


async def test_the_statement_month_by_month_with_the_balance_brought_forward(client, factory, db):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    ancienne = await cotisation(db, member.membre, org, 1500, echeance=date(ANNEE - 1, 12, 5))
    janvier = await cotisation(db, member.membre, org, 2000, echeance=date(ANNEE, 1, 5))
    fevrier = await cotisation(db, member.membre, org, 2000, echeance=date(ANNEE, 2, 5))
    await cotisation(db, member.membre, org, 9999, echeance=date(ANNEE, 2, 6), statut="ANNULEE")
    await _payer(client, treasurer, org, member, janvier, "2000", date(ANNEE, 1, 20))
    recu = await _payer(client, treasurer, org, member, ancienne, "1500", date(ANNEE, 2, 2))
    releve = await client.get("/api/compte-adherent/me/releve", headers=member.headers, params={"annee": ANNEE})
    assert releve.status_code == 200, releve.text
    body = releve.json()
    assert body["report"] == "1500.00"  # last December's dues, unpaid on 1 January
    jan, fev = body["mois"][0], body["mois"][1]
    assert (jan["appele"], jan["paye"], jan["solde"]) == ("2000.00", "2000.00", "1500.00")
    assert (fev["appele"], fev["paye"], fev["solde"]) == ("2000.00", "1500.00", "2000.00")
    assert [lg["reference"] for lg in fev["lignes"]] == [recu["numeroRecu"], fevrier.numero_reference]
    assert body["mois"][11]["solde"] == body["solde"] == "2000.00"
    assert (body["totalAppele"], body["totalPaye"]) == ("4000.00", "3500.00")
    # What the statement says is owed is what the account says is owed.
    compte = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    assert Decimal(compte["cotisations"]["montantDu"]) - Decimal(compte["cotisations"]["montantPaye"]) == Decimal(
        body["solde"])
    other = await factory.organisation()
    assert (await client.get("/api/compte-adherent/me/releve", headers=member.headers,
                             params={"organisationId": str(other.id)})).status_code == 404


async def test_the_member_reads_his_statement_in_the_console(client, factory, db):
    from tests.console.connexion import sign_in

    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, 2500, echeance=date(ANNEE, 1, 5))
    await sign_in(client, member, db)
    assert "/console/moi/releve" in (await client.get("/console/moi")).text
    page = await client.get("/console/moi/releve")
    assert page.status_code == 200 and dues.numero_reference in page.text and "Janvier" in page.text
    assert len(page.content) < 30_000
