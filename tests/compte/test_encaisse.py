"""One truth per figure (issue 28 item 7): « cotisations encaissées » over a period is the credits of the dues
income accounts dated in it, on every surface. A receipt of last month leaving credit applied today: last month's
figure stays as it was closed, this month counts the credit applied; an advance or a donation is not dues
collected; today ≤ this month ≤ this year."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tests.compte.encaisse_helpers import consolidation, credits_balance, imputer, payer, tableau
from tests.console.connexion import sign_in
from tests.factories.cotisations import cotisation
from unionflow.console.pages import montant


async def _setup(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, tresorier, membre


async def test_credit_applied_after_the_closing_counts_when_applied_and_the_closed_month_stays(client, factory, db):
    org, tresorier, membre = await _setup(factory)
    today = datetime.now(UTC).date()
    fin_precedent = today.replace(day=1) - timedelta(days=1)
    debut_precedent = fin_precedent.replace(day=1)
    # « 1 December »: 5,000 received for dues of 3,000; 2,000 stays as the member's credit.
    await payer(client, db, org, tresorier, membre, 5000, 3000, debut_precedent)
    assert await consolidation(client, org, tresorier, debut_precedent, fin_precedent) == Decimal(3000)
    locked = await client.put("/api/comptabilite/verrouillage", headers=tresorier.headers, json={
        "organisationId": str(org.id), "dateVerrouillage": fin_precedent.isoformat()})
    assert locked.status_code == 200, locked.text

    # « 2 January »: new dues, the credit pays 2,000 of them.
    await payer(client, db, org, tresorier, membre, 1000, 1000, today)
    await cotisation(db, membre.membre, org, 3000)
    assert await imputer(client, org, tresorier, membre) == Decimal(2000)

    # The closed month keeps its figure; the credit applied counts today, this month, this year.
    assert await consolidation(client, org, tresorier, debut_precedent, fin_precedent) == Decimal(3000)
    assert await credits_balance(client, org, tresorier, debut_precedent, fin_precedent) == Decimal(3000)
    board = await tableau(client, org, tresorier)
    same_year = Decimal(3000) if debut_precedent.year == today.year else Decimal(0)
    assert board["encaisseCotisationsJour"] == Decimal(3000)
    assert board["encaisseCotisationsMois"] == Decimal(3000)
    assert board["encaisseCotisationsAnnee"] == Decimal(3000) + same_year
    assert await consolidation(client, org, tresorier, today.replace(day=1), today) == Decimal(3000)
    assert await credits_balance(client, org, tresorier, today.replace(day=1), today) == Decimal(3000)


async def test_advances_and_donations_are_not_dues_collected_and_today_stays_under_the_month(client, factory, db):
    org, tresorier, membre = await _setup(factory)
    today = datetime.now(UTC).date()
    await payer(client, db, org, tresorier, membre, 25000, 25000, today.replace(day=1))
    await payer(client, db, org, tresorier, membre, 7000, 3000, today)  # 4,000 of it is an advance
    don = await client.post("/api/paiements/recettes", headers=tresorier.headers, json={
        "nature": "DON", "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "1000",
        "methode": "ESPECES"})
    assert don.status_code == 201, don.text

    board = await tableau(client, org, tresorier)
    jour = Decimal(25000 + 3000) if today.day == 1 else Decimal(3000)
    assert board["encaisseCotisationsJour"] == jour
    assert board["encaisseCotisationsMois"] == Decimal(28000)
    assert board["encaisseCotisationsJour"] <= board["encaisseCotisationsMois"] <= board["encaisseCotisationsAnnee"]

    # The console's board shows the same three figures (the 29,000 « today » above 25,000 « this month »).
    await sign_in(client, tresorier, db)
    console = await client.get("/console/tresorerie")
    assert console.status_code == 200, console.text
    chiffres = re.findall(r"<span>Cotisations encaissées ([^<]+)</span><strong>([^<]+)</strong>", console.text)
    assert chiffres == [("aujourd'hui", montant(board["encaisseCotisationsJour"])),
                        ("ce mois", montant(board["encaisseCotisationsMois"])),
                        ("cette année", montant(board["encaisseCotisationsAnnee"]))], chiffres


def test_the_dashboard_documents_its_one_definition_and_its_extensions(app):
    schema = app.openapi()
    champs = schema["components"]["schemas"]["DashboardOrganisationResponse"]["properties"]
    assert champs["encaisseCotisationsJour"]["description"].startswith("Extension")
    assert champs["cotisationsExtourneesMois"]["description"].startswith("Extension")
    route = schema["paths"]["/api/dashboard/organisation"]["get"]["description"]
    assert "jour ≤ mois ≤ année" in route and "comptabilité" in route
