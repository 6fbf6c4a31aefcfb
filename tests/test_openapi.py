"""The published OpenAPI: spec area tags, the IdentityProvider scheme with each route's roles, problem responses."""

from __future__ import annotations

import re

from unionflow.core.openapi import AREAS, shadowed_path
from unionflow.core.routing import PUBLIC_ROUTES, api_routes


async def test_openapi_declares_security_roles_and_problems(client, app):
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["info"]["version"] == "1.0.0"
    assert schema["components"]["securitySchemes"]["IdentityProvider"]["scheme"] == "bearer"
    tags = {t["name"] for t in schema["tags"]}
    assert set(AREAS) <= tags

    operations = 0
    for info in api_routes(app):
        for method in info.methods:
            op = schema["paths"][info.path][method.lower()]
            operations += 1
            idempotent = any(p["name"].lower() == "idempotency-key" for p in op.get("parameters", []))
            # 422 is only the reused idempotency key, never FastAPI's validation error (that is 400).
            assert ("422" in op["responses"]) == idempotent, f"{method} {info.path}: 422 documented wrongly"
            assert "400" in op["responses"] and "500" in op["responses"]
            assert set(op.get("tags", [])) <= tags, f"{method} {info.path} has a tag outside the spec areas"
            if (method, info.path) in PUBLIC_ROUTES:
                assert op["security"] == []
            else:
                roles = op["security"][0]["IdentityProvider"]
                assert roles == sorted(info.authorizer.role_set.roles)  # type: ignore[union-attr]
                assert {"401", "403"} <= set(op["responses"])
                assert op["responses"]["403"]["content"]["application/problem+json"]
    assert operations >= 10


async def test_swagger_ui_is_served(client):
    response = await client.get("/docs")
    assert response.status_code == 200 and "swagger" in response.text.lower()


async def test_operation_ids_schema_names_and_binary_bodies_are_client_ready(client):
    schema = (await client.get("/openapi.json")).json()
    ids = [op["operationId"] for ops in schema["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", i) for i in ids), [i for i in ids if not i.isascii()]
    assert all(i.isascii() for i in ids)
    # French, from the paths: the action's own segment, a verb by method for resources, ``par_<champ>`` lookups.
    expected = {("post", "/api/adhesions/{id}/approuver"): "adhesions_approuver",
                ("get", "/api/adhesions"): "adhesions_lister", ("post", "/api/adhesions"): "adhesions_creer",
                ("get", "/api/adhesions/{id}"): "adhesions_obtenir",
                ("put", "/api/adhesions/{id}"): "adhesions_modifier",
                ("delete", "/api/adhesions/{id}"): "adhesions_supprimer",
                ("get", "/api/adhesions/membre/{membreId}"): "adhesions_lister_par_membre",
                ("get", "/api/adhesions/reference/{numeroReference}"): "adhesions_obtenir_par_reference",
                ("get", "/api/membres/me"): "membres_me_obtenir",
                ("get", "/api/comptabilite/comptes/{id}"): "comptabilite_comptes_obtenir",
                ("post", "/api/documents/pieces-jointes"): "documents_pieces_jointes_creer",
                ("get", "/api/documents/{documentId}/pieces-jointes"): "documents_pieces_jointes_lister"}
    assert {key: schema["paths"][key[1]][key[0]]["operationId"] for key in expected} == expected
    assert "Body_membres_import" in schema["components"]["schemas"]
    names = set(schema["components"]["schemas"])
    assert not [n for n in names if "__" in n]
    assert {"FeedbackResponse", "EvenementsFeedbackResponse", "CreateMessageRequest",
            "TicketsCreateMessageRequest"} <= names
    recu = schema["paths"]["/api/paiements/{id}/recu"]["get"]["responses"]["200"]["content"]
    assert recu["application/pdf"]["schema"] == {"type": "string", "format": "binary"}
    export = schema["paths"]["/api/export/cotisations"]["get"]["responses"]["200"]["content"]
    assert all(c["schema"]["format"] == "binary" for c in export.values())
    # Money: a decimal string with a pattern, on input (bounds become the pattern) and on output.
    cotisation = schema["components"]["schemas"]["CotisationResponse"]["properties"]["montantDu"]
    assert cotisation["type"] == "string" and cotisation["format"] == "decimal" and "pattern" in cotisation
    # On input a JSON number too, within the same bounds (issue 21, finding 10).
    update = schema["components"]["schemas"]["UpdateAdhesionRequest"]["properties"]["fraisAdhesion"]
    string, number = update["oneOf"]
    assert re.fullmatch(string["pattern"], "2500.00") and not re.fullmatch(string["pattern"], "-1")
    assert number == {"type": "number", "multipleOf": 0.01, "minimum": 0, "exclusiveMaximum": 1e16}
    assert "ge" not in update and "max_digits" not in update
    # An analytics route naming an organisation declares the 404 it answers for an unknown one.
    analytics = [op for path, ops in schema["paths"].items() if path.startswith("/api/analytics")
                 for op in ops.values() if any(p["name"] == "organisationId" for p in op.get("parameters", []))]
    assert analytics and all("404" in op["responses"] for op in analytics)


async def test_every_declared_405_is_a_real_405(client, app, factory):
    """405 is declared where a text in place of a UUID makes another resource's path that lacks the method;
    each such path really answers 405, with an ``Allow`` that lacks the method (the fuzz finds an undeclared
    one: schemathesis ST103)."""
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    schema = app.openapi()
    declared = 0
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            concrete = shadowed_path(path, method, schema["paths"])
            assert ("405" in op["responses"]) == (concrete is not None), (method, path)
            if concrete is None:
                continue
            declared += 1
            url = re.sub(r"\{\w+\}", "00000000-0000-4000-8000-000000000000", concrete)
            response = await client.request(method.upper(), url, headers=admin.headers)
            assert response.status_code == 405, (method, path, url, response.text)
            assert method.upper() not in response.headers["Allow"]
    assert declared > 20
