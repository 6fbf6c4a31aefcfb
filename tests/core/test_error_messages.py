"""Error messages a person can act on (issue 21, finding 14): where the JSON is broken, a French 404 for an unknown
address, the limit a decimal broke."""

from __future__ import annotations

PROBLEM = "application/problem+json"


async def test_invalid_json_says_line_and_column(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/organisations", headers={**admin.headers, "Content-Type": "application/json"},
                                 content=b'{"nom": "Union",\n  "typeOrganisation" "UNION"}')
    assert response.status_code == 400, response.text
    body = response.json()
    message = "JSON invalide (ligne 2, colonne 22)"
    assert body["errors"] == [{"field": "body", "type": "json_invalid", "message": message}]
    assert body["detail"] == "body: JSON invalide (ligne 2, colonne 22)"


async def test_an_unknown_path_is_a_french_problem(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    for headers in ({}, admin.headers):
        response = await client.get("/api/nulle-part", headers=headers)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith(PROBLEM)
        assert response.json()["detail"] == "Aucune ressource à cette adresse."
        assert response.json()["title"] == "Ressource introuvable"


async def test_decimal_errors_state_the_limit(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    member = await factory.actor(["MEMBRE"], organisation=org)
    for montant, expected in ((12.345, "au plus deux décimales"), (12345678901234567, "au plus 16 chiffres"),
                              ("12.345", "au plus 16 chiffres avant la virgule et deux décimales")):
        response = await client.post("/api/cotisations", headers=admin.headers, json={
            "membreId": str(member.membre.id), "organisationId": str(org.id), "typeCotisation": "MENSUELLE",
            "annee": 2026, "montantDu": montant, "dateEcheance": "2026-12-31"})
        assert response.status_code == 400, response.text
        assert expected in response.json()["detail"], response.json()["detail"]
