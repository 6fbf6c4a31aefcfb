"""Input that matches the published schema but breaks a rule the schema cannot state (a cross-field rule, a code
of the editable reference table, a record named by id) is 400 ``regle-metier``; input that does not match the
schema stays 400 ``invalid-input``. Clients and the fuzz tell the two apart by the problem type."""

from __future__ import annotations

import uuid
from typing import Any

from tests.factories.evenements import event_body
from tests.factories.finance import bureau

REGLE = "https://unionflow.dev/problems/regle-metier"
INVALIDE = "https://unionflow.dev/problems/invalid-input"


def kind(response: Any) -> str:
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return str(response.json()["type"])


async def test_period_order_in_exports_statements_and_alerts(client, factory):
    b = await bureau(factory)
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    inverted = {"dateDebut": "2026-03-01", "dateFin": "2026-02-01"}
    for url in ("/api/export/adhesions", "/api/export/paiements", "/api/export/audit", "/api/export/ecritures",
                "/api/alertes-lcb-ft", "/api/finance/workflow/statistiques"):
        response = await client.get(url, headers=admin.headers, params=inverted)
        assert kind(response) == REGLE, url
        assert "dateDebut" in response.json()["detail"] or "dateFin" in response.json()["detail"]
    for etat in ("balance", "compte-resultat", "grand-livre", "journal"):
        response = await client.get(f"/api/comptabilite/etats/{etat}", headers=b.tresorier.headers,
                                    params={"organisationId": str(b.org.id), **inverted})
        assert kind(response) == REGLE, etat
    # A value the schema refuses stays invalid-input.
    assert kind(await client.get("/api/export/adhesions", headers=admin.headers,
                                  params={"dateDebut": "2026-13-01"})) == INVALIDE


async def test_alert_filters_are_typed(client, factory):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    for bad in ({"dateDebut": "hier"}, {"dateFin": "2026-02-30"}, {"organisationId": "abc"}, {"typeAlerte": "X"}):
        assert kind(await client.get("/api/alertes-lcb-ft", headers=admin.headers, params=bad)) == INVALIDE, bad
    for good in ({"dateDebut": "2026-01-01", "dateFin": "2026-01-01"},
                 {"dateDebut": "2026-01-01T00:00:00Z", "dateFin": "2026-01-01T10:00:00+01:00"},
                 {"organisationId": str(uuid.uuid4())}):
        response = await client.get("/api/alertes-lcb-ft", headers=admin.headers, params=good)
        assert response.status_code == 200, (good, response.text)
    # A midnight instant is an instant, not a whole day: dateDebut = dateFin at 00:00 is an empty period.
    same = {"dateDebut": "2026-01-01T00:00:00Z", "dateFin": "2026-01-01T00:00:00Z"}
    assert kind(await client.get("/api/alertes-lcb-ft", headers=admin.headers, params=same)) == REGLE


async def test_event_dates_and_reference_types(client, factory):
    org = await factory.organisation()
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    body = event_body(org.id)
    inverted = {**body, "dateDebut": body["dateFin"], "dateFin": body["dateDebut"]}
    response = await client.post("/api/evenements", headers=organiser.headers, json=inverted)
    assert kind(response) == REGLE and "dateFin" in response.json()["detail"]
    unknown = await client.post("/api/evenements", headers=organiser.headers, json={**body, "typeEvenement": "ZZZ"})
    assert kind(unknown) == REGLE and "typeEvenement" in unknown.json()["detail"]
    assert kind(await client.get("/api/evenements/type/ZZZ", headers=organiser.headers)) == REGLE
    assert kind(await client.post("/api/evenements", headers=organiser.headers,
                                  json={**body, "capaciteMax": "50"})) == INVALIDE


async def test_aid_type_filter_and_organisation_logo(client, factory):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    response = await client.get("/api/propositions-aide", headers=membre.headers, params={"type": "INCONNU"})
    assert kind(response) == REGLE and "type" in response.json()["detail"]
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    logo = await client.put(f"/api/organisations/{org.id}", headers=admin.headers,
                            json={"logoDocumentId": str(uuid.uuid4())})
    assert kind(logo) == REGLE


async def test_payment_and_budget_cross_field_rules(client, factory):
    b = await bureau(factory)
    both = {"membreId": str(b.membre.membre.id), "organisationId": str(b.org.id), "montant": "1000.00",
            "methode": "ESPECES", "cibles": [{"cotisationId": str(uuid.uuid4()), "adhesionId": str(uuid.uuid4())}]}
    response = await client.post("/api/paiements", headers={**b.tresorier.headers, "Idempotency-Key": "k-1"},
                                 json=both)
    assert kind(response) == REGLE and "cotisationId" in response.json()["detail"]
    budget = {"organisationId": str(b.org.id), "annee": 2026, "libelle": "Budget 2026",
              "dateDebut": "2026-06-01", "dateFin": "2026-01-01",
              "lignes": [{"libelle": "Personnel", "prefixeCompte": "66", "montantPrevu": "1000"}]}
    response = await client.post("/api/finance/budgets", headers=b.tresorier.headers, json=budget)
    assert kind(response) == REGLE and "dateFin" in response.json()["detail"]
    neither = {**budget, "dateDebut": None, "dateFin": None, "lignes": [{"libelle": "Rien", "montantPrevu": "1"}]}
    response = await client.post("/api/finance/budgets", headers=b.tresorier.headers, json=neither)
    assert kind(response) == REGLE and "prefixeCompte" in response.json()["detail"]


async def test_birth_date_in_the_future_or_before_1900_is_a_rule(client, factory):
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    member = await factory.actor(["MEMBRE"])
    url = f"/api/membres/{member.membre.id}"
    for bad in ("2999-01-01", "1899-12-31"):
        assert kind(await client.put(url, headers=admin.headers, json={"dateNaissance": bad})) == REGLE, bad
    assert kind(await client.put(url, headers=admin.headers, json={"dateNaissance": "1990-02-30"})) == INVALIDE
    response = await client.put(url, headers=admin.headers, json={"dateNaissance": "1990-02-28"})
    assert response.status_code == 200, response.text
