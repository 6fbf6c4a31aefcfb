"""Every business rule answered 400 ``regle-metier`` is stated in its operation's description (issue 21,
finding 11): derived for the rules of the request models (a validator calling ``regle_metier``), listed for the
rules the services check."""

from __future__ import annotations

import inspect
import typing

from pydantic import BaseModel

from unionflow.core.routing import api_routes

# Rules checked by services (not visible in the request model): operation -> words its description must carry.
SERVICE_RULES = {
    ("GET", "/api/wave/solde"): ["organisationId"],
    ("GET", "/api/analytics/adhesions/entonnoir"): ["dateDebut", "dateFin"],
    ("GET", "/api/analytics/evenements/participation"): ["dateDebut", "dateFin"],
    ("POST", "/api/documents"): ["ORGANISATION", "organisationId", "TYPE_DOCUMENT"],
    ("POST", "/api/documents/upload"): ["ORGANISATION", "organisationId", "TYPE_DOCUMENT"],
    ("PUT", "/api/configuration/{cle}"): ["`valeur` null"],
    ("POST", "/api/admin/associer-organisation"): ["rôles non attribuables"],
    ("POST", "/api/notifications"): ["membreIds", "tousMembresActifs", "codeModele", "sujet", "corps"],
    ("POST", "/api/paiements"): ["cotisationId", "adhesionId"],
    ("POST", "/api/paiements/wave/checkout"): ["cotisationId", "adhesionId", "membreId"],
    # Found by the strict fuzz (schema-valid input refused): what depends on stored data is described.
    ("POST", "/api/membres"): ["`regle-metier`", "roles", "organisationId"],
    ("PUT", "/api/membres/{id}"): ["`invalid-state`", "`regle-metier`", "dateNaissance"],
    ("PUT", "/api/membres/me/mot-de-passe"): ["`regle-metier`"],
    ("PUT", "/api/organisations/{id}"): ["`regle-metier`", "UNION", "logoDocumentId"],
    ("POST", "/api/adhesions/{id}/paiement"): ["WAVE_TRANSFERT", "referencePaiement"],
    ("POST", "/api/tickets"): ["fiche"], ("POST", "/api/suggestions"): ["fiche"],
    ("POST", "/api/demandes-aide"): ["`regle-metier`", "fiche"],
    ("POST", "/api/propositions-aide"): ["`regle-metier`", "fiche"],
    # Reference-table codes (editable tables, so not enums).
    ("GET", "/api/evenements/type/{type}"): ["`regle-metier`", "TYPE_EVENEMENT"],
    ("GET", "/api/demandes-aide/search"): ["`regle-metier`", "TYPE_AIDE"],
    ("GET", "/api/propositions-aide"): ["`regle-metier`", "TYPE_AIDE"],
    ("POST", "/api/auth/token"): ["`username`", "`password`", "`refresh_token`"],
    ("PUT", "/api/ussd/pin/me"): ["`regle-metier`"],
    ("POST", "/api/admin/clients-api"): ["`regle-metier`", "organisationIds"],
    ("PUT", "/api/admin/users/{id}"): ["`regle-metier`", "username"],
    ("GET", "/api/dashboard/organisation"): ["`regle-metier`", "organisationId"],
}
# Other refusals of schema-valid input a schema cannot state (credentials, free JSON): named in the description.
AUTRES = {("POST", "/api/auth/reinitialiser-mot-de-passe"): ["`invalid-reset-token`"],
          ("POST", "/api/audit"): ["`caractere-controle`"]}
# State-dependent refusals (400 `invalid-state`): only a description can say them.
ETATS = [("POST", "/api/adhesions/{id}/approuver"), ("POST", "/api/adhesions/{id}/paiement"),
         ("POST", "/api/adhesions/{id}/rejeter"), ("PUT", "/api/adhesions/{id}"), ("POST", "/api/membres/{id}/statut"),
         ("POST", "/api/organisations/{id}/reactiver"), ("POST", "/api/organisations/{id}/suspendre"),
         ("PUT", "/api/cotisations/{id}"), ("PUT", "/api/cotisations/{id}/payer"), ("DELETE", "/api/evenements/{id}"),
         ("PUT", "/api/evenements/{id}"), ("POST", "/api/evenements/{id}/confirmer"),
         ("GET", "/api/documents/{id}/contenu"), ("POST", "/api/documents/{id}/telechargement"),
         ("POST", "/api/admin/clients-api/{id}/revoquer")]


def _models(annotation: object, seen: set[type]) -> set[type]:
    found: set[type] = set()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return found
        seen.add(annotation)
        found.add(annotation)
        for field in annotation.model_fields.values():
            found |= _models(field.annotation, seen)
    for arg in typing.get_args(annotation):
        found |= _models(arg, seen)
    return found


def _has_model_rule(route: object) -> bool:
    body = getattr(route, "body_field", None)
    if body is None:
        return False
    # A rule raised by a validator, or declared (core.regles, stated in the schema too).
    return any("regle_metier(" in inspect.getsource(model) or getattr(model, "regles", ())
               for model in _models(body.field_info.annotation, set()) if model.__module__.startswith("unionflow."))


async def test_every_business_rule_is_in_its_operation_description(client, app):
    paths = (await client.get("/openapi.json")).json()["paths"]
    missing = []
    for info in api_routes(app):
        route = info
        for method in info.methods - {"HEAD"}:
            description = paths[info.path][method.lower()].get("description", "")
            words = SERVICE_RULES.get((method, route.path), [])
            if (words or _has_model_rule(info.route)) and "regle-metier" not in description:
                missing.append(f"{method} {route.path}: regle-metier")
            words = words + (["`invalid-state`"] if (method, route.path) in ETATS else [])
            words = words + AUTRES.get((method, route.path), [])
            missing += [f"{method} {route.path}: {w}" for w in words if w not in description]
    assert not missing, "\n".join(missing)


async def test_request_fields_with_a_default_stay_optional_for_generated_clients(client):
    # Issue 21, finding 13: openapi-typescript (defaultNonNullable, its default) types a property carrying
    # `default` as always present, so `{nom, typeOrganisation}` without `pays` did not compile under tsc --strict
    # (TS2741). Request-only schemas state their defaults as `x-default` and in the description instead.
    schema = (await client.get("/openapi.json")).json()
    pays = schema["components"]["schemas"]["CreateOrganisationRequest"]["properties"]["pays"]
    assert "default" not in pays and pays["x-default"] == "SN" and "Défaut: `\"SN\"`" in pays["description"]
    assert "pays" not in schema["components"]["schemas"]["CreateOrganisationRequest"].get("required", [])
    bodies = {ref.rsplit("/", 1)[1] for ops in schema["paths"].values() for op in ops.values()
              for content in op.get("requestBody", {}).get("content", {}).values()
              if (ref := content["schema"].get("$ref"))}
    carrying = [f"{name}.{field}" for name in bodies
                for field, prop in schema["components"]["schemas"][name].get("properties", {}).items()
                if "default" in prop and field not in schema["components"]["schemas"][name].get("required", [])]
    assert not carrying, carrying


async def test_the_token_form_states_the_fields_its_grant_requires(client):
    import jsonschema_rs

    form = (await client.get("/openapi.json")).json()["components"]["schemas"]["Body_auth_token"]
    validator = jsonschema_rs.validator_for(form)
    cases = [({"grant_type": "password"}, False), ({"grant_type": "password", "username": "a@b.sn"}, False),
             ({"grant_type": "password", "username": "a@b.sn", "password": ""}, False),
             ({"grant_type": "password", "username": "a@b.sn", "password": "x"}, True),
             ({"grant_type": "refresh_token"}, False), ({"grant_type": "refresh_token", "refresh_token": "t"}, True)]
    for body, valid in cases:
        assert validator.is_valid(body) == valid, body
        if not valid:  # an empty form field is an absent one, for the server as for the schema
            answer = await client.post("/api/auth/token", data=body)
            assert (answer.status_code, answer.json()["type"].rsplit("/", 1)[1]) == (400, "regle-metier"), body
