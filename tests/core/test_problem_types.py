"""400 problem types: ``invalid-input`` when the request does not match the published schema, ``regle-metier`` when
every field is valid but a rule no schema can state is broken (``make fuzz`` relies on the difference)."""

from __future__ import annotations

import uuid

REGLE = "https://unionflow.dev/problems/regle-metier"
INVALIDE = "https://unionflow.dev/problems/invalid-input"


async def test_cross_field_rule_is_regle_metier_and_schema_violation_is_invalid_input(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    url = f"/api/messagerie/conversations/{uuid.uuid4()}/messages"

    both = await client.post(url, headers=awa.headers, json={"contenu": "Bonjour", "documentId": str(uuid.uuid4())})
    assert both.status_code == 400 and both.json()["type"] == REGLE, both.text
    assert "l'un des deux exactement" in both.json()["detail"]

    # A field the schema refuses wins over the cross-field rule: the request does not match the OpenAPI.
    unknown = await client.post(url, headers=awa.headers, json={"contenu": "Bonjour", "inconnu": 1})
    assert unknown.status_code == 400 and unknown.json()["type"] == INVALIDE, unknown.text
    too_long = await client.post(url, headers=awa.headers, json={"contenu": "x" * 5001})
    assert too_long.status_code == 400 and too_long.json()["type"] == INVALIDE


async def test_service_rules_beyond_the_schema_are_regle_metier(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    # Analytics: each date is valid, their order is a rule of the operation's description.
    backwards = await client.get("/api/analytics/adhesions/entonnoir", headers=admin.headers,
                                 params={"dateDebut": "2026-02-01", "dateFin": "2026-01-01"})
    assert backwards.status_code == 400 and backwards.json()["type"] == REGLE, backwards.text
    # Configuration: the key's pattern is in the schema (invalid-input), its value's type is the key's (regle-metier).
    bad_key = await client.put("/api/configuration/Pas-Une-Cle", headers=admin.headers, json={"valeur": "1"})
    assert bad_key.status_code == 400 and bad_key.json()["type"] == INVALIDE, bad_key.text


async def test_openapi_documents_the_problem_types(client):
    problem = (await client.get("/openapi.json")).json()["components"]["schemas"]["Problem"]
    for slug in ("invalid-input", "regle-metier", "invalid-state", "invalid-grant"):
        assert slug in problem["description"]
