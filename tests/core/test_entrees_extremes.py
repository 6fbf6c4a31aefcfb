"""Inputs a strict schemathesis run sent (every check, no allowlist): each is answered by a 400 the published
schema predicts, or accepted, never a 500 nor a refusal of what the schema calls valid."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from unionflow.core.schemas import trimmed_length_pattern
from unionflow.paiements.schemas import MotifRequest

INVALIDE = "https://unionflow.dev/problems/invalid-input"
CONTROLE = "https://unionflow.dev/problems/caractere-controle"
ASTRAL = "\U0001f600"


async def test_an_amount_beyond_the_columns_is_400_for_number_and_string(client, factory):
    org = await factory.organisation()
    for roles in (["ADMIN"], ["TRESORIER"]):
        caller = await factory.actor(roles, with_membre=False)
        for montant in ("6.59e307", "1e16", "-1e300", "\"99999999999999999\""):
            # Written by hand: json.dumps would turn 6.59e307 into a float's repr, not this number literal.
            body = (f'{{"organisationId": "{org.id}", "typeCotisation": "MENSUELLE", "annee": 2026, "mois": 1, '
                    f'"montant": {montant}}}')
            response = await client.post("/api/cotisations/generer", content=body,
                                         headers={**caller.headers, "Content-Type": "application/json"})
            assert response.status_code == 400, (roles, montant, response.text)
            assert response.json()["type"] == INVALIDE
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    montant = schemas["GenererCotisationsRequest"]["properties"]["montant"]
    number = next(b for b in montant["oneOf"] if b["type"] == "number")
    assert number["exclusiveMaximum"] == 1e16 and "10^16" in montant["description"]


@pytest.mark.parametrize("motif", ["\f~" + ASTRAL, "\b~" + ASTRAL + ASTRAL, "ab\u000c"])
async def test_a_control_character_in_a_short_escape_is_refused_as_such(client, factory, motif):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    response = await client.post(f"/api/paiements/{uuid.uuid4()}/rembourser", headers=treasurer.headers,
                                 json={"motif": motif})
    assert response.status_code == 400 and response.json()["type"] == CONTROLE, response.text
    assert re.search(r"\\[bf]", json.dumps(motif))  # sent as JSON's short escape, not \u000c


async def test_the_schema_of_a_motif_counts_as_the_server_does(client, factory):
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    motif = schemas["MotifRequest"]["properties"]["motif"]
    assert motif["minLength"] == 3 and motif["pattern"] == trimmed_length_pattern(3)
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    samples = ["\f~" + ASTRAL, "~" + ASTRAL, " ~" + ASTRAL + " ", "~" + ASTRAL + "!", ASTRAL * 3, "a\u00a0b",
               "\u00a0ab\u00a0", "a  b", "abc\u3000", "\u2028ab", "a\u2003\u2003", "a\x85b", "abc\x7f", "\ufeffab"]
    for text in samples:
        predicted = re.search(motif["pattern"], text) is not None and len(text) >= motif["minLength"]
        response = await client.post(f"/api/paiements/{uuid.uuid4()}/rembourser", headers=treasurer.headers,
                                     json={"motif": text})
        # Accepted by validation: the payment named does not exist (404).
        assert (response.status_code == 404) == predicted, (text, response.status_code, response.text)


def test_every_trimmed_minimum_has_its_pattern():
    assert MotifRequest.model_json_schema()["properties"]["motif"]["pattern"] == trimmed_length_pattern(3)
    assert re.search(trimmed_length_pattern(1), " \u00a0 ") is None
    assert re.search(trimmed_length_pattern(1), " x ") is not None
    assert re.search(trimmed_length_pattern(5), "  abcd  ") is None
    assert re.search(trimmed_length_pattern(5), "  ab cd  ") is not None


async def test_observations_of_astral_characters_are_counted_in_code_points(client, factory):
    """``maxLength`` counts code points (JSON Schema), as the server: 5,000 emoji (10,000 UTF-16 units, 20,000
    UTF-8 bytes) are accepted and kept whole, one more is 400; a lone or reversed surrogate is 400, never a 500."""
    org = await factory.organisation()
    applicant = await factory.actor(["MEMBRE"], organisation=await factory.organisation())
    created = await client.post("/api/adhesions", headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "15000"})
    assert created.status_code == 201, created.text
    url = f"/api/adhesions/{created.json()['id']}"
    headers = {**applicant.headers, "Content-Type": "application/json"}
    full = ASTRAL * 4999 + "\U0010fffd"
    for body in (json.dumps({"observations": full}), json.dumps({"observations": full}, ensure_ascii=False)):
        accepted = await client.put(url, headers=headers, content=body.encode())
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["observations"] == full
    assert (await client.get(url, headers=applicant.headers)).json()["observations"] == full
    for body in (json.dumps({"observations": full + ASTRAL}).encode(), b'{"observations": "\\ud83d"}',
                 b'{"observations": "\\ude00\\ud83d"}', b'{"observations": "\xed\xa0\xbd\xed\xb8\x80"}'):
        refused = await client.put(url, headers=headers, content=body)
        assert refused.status_code == 400 and refused.json()["type"] == INVALIDE, (body[:40], refused.text)


async def test_the_period_and_motif_rules_of_dues_are_in_the_schema(client, factory):
    """What a schema can say of the dues period (``mois`` by ``typeCotisation``) and of a generation before the
    membership (``motif``), it says: each body is valid for the published schema exactly when the server does not
    answer 400 ``regle-metier``."""
    import jsonschema_rs

    document = (await client.get("/openapi.json")).json()
    validator = jsonschema_rs.validator_for({"$ref": "#/components/schemas/GenererCotisationsRequest",
                                             "components": document["components"]})
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    base = {"organisationId": str(org.id), "annee": 2026, "montant": "1000"}
    cases = [({"typeCotisation": "MENSUELLE"}, False), ({"typeCotisation": "MENSUELLE", "mois": 5}, True),
             ({"typeCotisation": "TRIMESTRIELLE", "mois": 2}, False),
             ({"typeCotisation": "TRIMESTRIELLE", "mois": 4}, True),
             ({"typeCotisation": "SEMESTRIELLE"}, False), ({"typeCotisation": "SEMESTRIELLE", "mois": 7}, True),
             ({"typeCotisation": "ANNUELLE", "mois": 3}, False), ({"typeCotisation": "ANNUELLE"}, True),
             ({"typeCotisation": "EXCEPTIONNELLE"}, True),
             ({"typeCotisation": "ANNUELLE", "avantAdhesion": True}, False),
             ({"typeCotisation": "ANNUELLE", "avantAdhesion": True, "motif": "Rattrapage voté en AG"}, True)]
    for extra, valid in cases:
        body = {**base, **extra}
        assert validator.is_valid(body) is valid, body
        response = await client.post("/api/cotisations/generer", headers=admin.headers, json=body)
        refused = response.status_code == 400 and response.json()["type"].endswith("/regle-metier")
        assert refused is not valid and response.status_code < 500, (body, response.text)
