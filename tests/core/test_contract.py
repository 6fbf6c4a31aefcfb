"""The wire contract every area shares: money as two-decimal strings, JSON booleans and ISO dates only (body and
query), null refused on fields an update cannot clear, and validation messages in French."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from tests.factories.cotisations import BASE, cotisation_a_venir, days, treasury
from unionflow.core.schemas import InputModel, Montant


async def test_money_is_two_decimals_on_the_wire_whatever_was_sent(client, factory):
    org, treasurer, a, _ = await treasury(factory)
    body = {"membreId": str(a.membre.id), "organisationId": str(org.id), "typeCotisation": "MENSUELLE",
            "libelle": "Mars", "annee": 2026, "mois": 3, "montantDu": 125000, "dateEcheance": str(days(10))}
    created = await client.post(BASE, headers=treasurer.headers, json=body)
    assert created.status_code == 201, created.text
    assert created.json()["montantDu"] == "125000.00" and created.json()["montantPaye"] == "0.00"
    url = f"{BASE}/{created.json()['id']}"
    paid = await client.put(f"{url}/payer", headers=treasurer.headers, json={"montant": 1000})
    assert paid.status_code == 200, paid.text
    again = (await client.get(url, headers=treasurer.headers)).json()
    assert (again["montantDu"], again["montantPaye"], again["montantRestant"]) == ("125000.00", "1000.00",
                                                                                  "124000.00")
    for bad in ("12.345", "1e3", "abc", True, "100000000000000000"):
        refused = await client.put(f"{url}/payer", headers=treasurer.headers, json={"montant": bad})
        assert refused.status_code == 400, (bad, refused.text)


def test_money_type_parses_numbers_and_strings_and_serialises_two_decimals():
    class Body(InputModel):
        montant: Montant

    assert Body.model_validate({"montant": 10.5}).montant == Decimal("10.5")
    assert Body.model_validate({"montant": "2500"}).model_dump_json() == '{"montant":"2500.00"}'
    # What the positive pattern admits is accepted: leading zeros before sixteen digits.
    assert Body.model_validate({"montant": "0001234567890123456.5"}).montant == Decimal("1234567890123456.5")
    with pytest.raises(ValidationError):
        Body.model_validate({"montant": float("nan")})


async def test_body_booleans_and_dates_must_be_json_booleans_and_iso_strings(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    entry = {"domaine": "TYPE_EVENEMENT", "code": "CONGRES", "libelle": "Congrès"}
    refused = await client.post("/api/types-reference", headers=admin.headers, json={**entry, "actif": 0})
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "actif"
    assert "booléen" in refused.json()["detail"]
    accepted = await client.post("/api/types-reference", headers=admin.headers, json={**entry, "actif": False})
    assert accepted.status_code == 201 and accepted.json()["actif"] is False

    org, treasurer, a, _ = await treasury(factory)
    due = await cotisation_a_venir(factory, a.membre, org)
    for bad in (0, "0", 1700000000):
        moved = await client.put(f"{BASE}/{due.id}", headers=treasurer.headers, json={"dateEcheance": bad})
        assert moved.status_code == 400 and "date" in moved.json()["detail"], moved.text
    ok = await client.put(f"{BASE}/{due.id}", headers=treasurer.headers, json={"dateEcheance": str(days(20))})
    assert ok.status_code == 200, ok.text


async def test_query_booleans_are_true_or_false_and_query_dates_iso(client, factory):
    member = await factory.actor(["MEMBRE"])
    for value in ("1", "0", "yes", "on", "True"):
        response = await client.get("/api/notifications/mes", headers=member.headers, params={"nonLues": value})
        assert response.status_code == 400, value
        assert response.json()["errors"][0]["field"] == "nonLues"
    assert (await client.get("/api/notifications/mes", headers=member.headers,
                             params={"nonLues": "true"})).status_code == 200
    treasurer = (await treasury(factory))[1]
    for value in ("0", "1700000000"):
        response = await client.get("/api/paiements", headers=treasurer.headers, params={"dateFin": value})
        assert response.status_code == 400 and response.json()["errors"][0]["field"] == "dateFin", value
    assert (await client.get("/api/paiements", headers=treasurer.headers,
                             params={"dateFin": "2026-03-31"})).status_code == 200
    # Authentication still comes first: a bad parameter without a token is 401.
    assert (await client.get("/api/paiements", params={"dateFin": "0"})).status_code == 401


async def test_update_refuses_null_on_fields_that_cannot_be_cleared(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation(description="Mutuelle des pêcheurs")
    url = f"/api/organisations/{org.id}"
    for field in ("typeOrganisation", "nom", "pays", "devise"):
        refused = await client.put(url, headers=admin.headers, json={field: None})
        assert refused.status_code == 400, refused.text
        assert refused.json()["errors"][0]["field"] == field
        assert "null" in refused.json()["detail"]
    cleared = await client.put(url, headers=admin.headers, json={"description": None})
    assert cleared.status_code == 200 and cleared.json()["description"] is None

    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]
    update = next(s for name, s in schema.items() if name.startswith("UpdateOrganisationRequest")
                  or name == "UpdateOrganisationRequest")
    assert "anyOf" not in update["properties"]["nom"] and update["properties"]["nom"]["type"] == "string"
    assert {"type": "null"} in update["properties"]["description"]["anyOf"]


async def test_validation_messages_are_french_with_the_field_name(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/organisations", headers=admin.headers,
                                 json={"nom": "X", "typeOrganisation": "CLUB", "email": "pas-un-email"})
    assert response.status_code == 400
    body = response.json()
    messages = {e["field"]: e["message"] for e in body["errors"]}
    assert messages["nom"] == "doit contenir au moins 2 caractère(s)"
    assert messages["typeOrganisation"].startswith("valeur non autorisée (attendu: 'UNION'")
    assert messages["email"].startswith("adresse e-mail invalide")
    assert body["detail"].startswith("nom: doit contenir au moins 2")
    missing = await client.post("/api/organisations", headers=admin.headers, json={})
    assert {e["message"] for e in missing.json()["errors"]} == {"champ obligatoire"}
    for text in (body["detail"], missing.json()["detail"]):
        assert not any(word in text for word in ("Input should", "Field required", "value is not", "String"))


async def test_method_not_allowed_lists_every_method_of_the_resource(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    # /api/audit is served by two routes (GET list, POST entry): Allow names both.
    response = await client.request("OPTIONS", "/api/audit", headers=admin.headers)
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) >= {"GET", "POST"}
    assert response.json()["detail"] == "Méthode OPTIONS non autorisée sur cette ressource"
    # PUT /api/adhesions/stats matches PUT /api/adhesions/{id} by its shape only: still 405, not 400.
    stats = await client.put("/api/adhesions/stats", headers=admin.headers, json={})
    assert stats.status_code == 405 and stats.headers["allow"] == "GET"
    # A malformed id on a resource that has the method stays a 400.
    assert (await client.put("/api/adhesions/pas-un-uuid", headers=admin.headers, json={})).status_code == 400


async def test_numbers_are_json_numbers_and_library_datetimes_are_strict_too(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    entry = {"domaine": "TYPE_EVENEMENT", "code": "SEMINAIRE", "libelle": "Séminaire"}
    for bad in (False, "3"):
        refused = await client.post("/api/types-reference", headers=admin.headers, json={**entry, "ordre": bad})
        assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "ordre", refused.text
    org, treasurer, a, _ = await treasury(factory)
    due = await cotisation_a_venir(factory, a.membre, org)
    paid = await client.put(f"{BASE}/{due.id}/payer", headers=treasurer.headers,
                            json={"montant": "100", "datePaiement": 0})
    assert paid.status_code == 400 and paid.json()["errors"][0]["field"] == "datePaiement"


async def test_a_literal_path_answers_405_before_authorisation(client, factory):
    member = await factory.actor(["MEMBRE"])
    # PUT /api/evenements/{id} is not for members, but /api/evenements/publics is another resource: 405.
    response = await client.put("/api/evenements/publics", headers=member.headers, json={})
    assert response.status_code == 405 and response.headers["allow"] == "GET"
