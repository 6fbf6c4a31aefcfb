"""Status, type, role and method fields are enums in the OpenAPI, so a generated client types them.

Walks every component schema and every query/path parameter of the served OpenAPI: a string field named like a
status or a type must carry an ``enum`` (directly or through a ``$ref``), unless listed below with its reason."""

from __future__ import annotations

import re
from typing import Any

# Names of fields whose value the server takes from (or checks against) a fixed list.
ENUM_LIKE = re.compile(
    r"^(statut\w*|status|type\w*|methode\w*|roles?|roleActif|categorie|priorite|niveau|canal|frequence|nature|mode|"
    r"urgence|severite|portee|genre|visibilite|decision|langue|theme|etat|objetType|database)$")

REFERENCE_TABLE = "table modifiable"
# (schema or "METHOD path", field) -> why it stays a free string.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # Codes of the editable reference table (Types de référence): the list changes at run time.
    ("CreateDemandeAideRequest", "type"): REFERENCE_TABLE,
    ("UpdateDemandeAideRequest", "type"): REFERENCE_TABLE,
    ("DemandeAideResponse", "type"): REFERENCE_TABLE,
    ("CreatePropositionAideRequest", "type"): REFERENCE_TABLE,
    ("UpdatePropositionAideRequest", "type"): REFERENCE_TABLE,
    ("PropositionAideResponse", "type"): REFERENCE_TABLE,
    ("CreateDocumentRequest", "typeDocument"): REFERENCE_TABLE,
    ("DocumentResponse", "typeDocument"): REFERENCE_TABLE,
    ("Evenement", "typeEvenement"): REFERENCE_TABLE,
    ("EvenementMobileDTO", "typeEvenement"): REFERENCE_TABLE,
    ("GET /api/demandes-aide/search", "type"): REFERENCE_TABLE,
    ("GET /api/propositions-aide", "type"): REFERENCE_TABLE,
    ("GET /api/evenements/type/{type}", "type"): REFERENCE_TABLE,
    # Audit action codes are open: clients record their own (POST /api/audit, pattern-checked), and the
    # active role of an entry may be any realm role of an external identity provider.
    ("CreateAuditLogRequest", "typeAction"): "codes d'action ouverts (motif)",
    ("AuditLogResponse", "typeAction"): "codes d'action ouverts",
    ("AuditLogResponse", "roleActif"): "rôle du fournisseur d'identité, liste ouverte",
    ("EvenementAudit", "typeAction"): "codes d'action ouverts",
    ("EvenementAudit", "roleActif"): "rôle du fournisseur d'identité, liste ouverte",
    ("POST /api/audit/rechercher", "typeAction"): "codes d'action ouverts",
    ("GET /api/finance/workflow/audit", "typeAction"): "codes d'action ouverts",
    # Echoed from Wave's API as Wave sends them.
    ("TransactionWaveResponse", "typeTransaction"): "valeur transmise par Wave",
    ("TransactionWaveResponse", "statut"): "statut transmis par Wave",
    ("GET /api/wave/transactions", "typeTransaction"): "valeur transmise par Wave",
    ("LigneReleveWaveResponse", "typeTransaction"): "type de transaction du relevé Wave, tel que Wave l'écrit",
    # Facts about a request or a file, not a choice: the HTTP method a logged request used, a MIME type.
    ("JournalSystemeResponse", "methode"): "méthode HTTP telle que reçue",
    ("DocumentResponse", "typeMime"): "type MIME du fichier",
    ("TelechargementResponse", "typeMime"): "type MIME du fichier",
}


def _is_enum(prop: dict[str, Any]) -> bool:
    if "enum" in prop or "$ref" in prop or "const" in prop:
        return True
    if prop.get("type") == "array":
        return _is_enum(prop.get("items", {}))
    branches = [b for b in prop.get("anyOf", []) + prop.get("oneOf", []) if b.get("type") != "null"]
    return bool(branches) and all(_is_enum(b) for b in branches)


def _is_text(prop: dict[str, Any]) -> bool:
    if prop.get("type") == "array":
        return _is_text(prop.get("items", {}))
    if prop.get("type") == "string":
        return prop.get("format") not in ("date", "date-time", "uuid", "binary", "decimal", "email", "uri")
    return any(_is_text(b) for b in prop.get("anyOf", []) + prop.get("oneOf", []))


def free_strings(schema: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for name, component in schema["components"]["schemas"].items():
        for field, prop in (component.get("properties") or {}).items():
            if ENUM_LIKE.match(field) and _is_text(prop) and not _is_enum(prop):
                found[(name, field)] = prop
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            for param in op.get("parameters", []):
                prop = param.get("schema", {})
                if param["in"] in ("query", "path") and ENUM_LIKE.match(param["name"]) and _is_text(prop) \
                        and not _is_enum(prop):
                    found[(f"{method.upper()} {path}", param["name"])] = {**prop, **param}
    return found


async def test_status_and_type_fields_are_enums(client):
    schema = (await client.get("/openapi.json")).json()
    found = free_strings(schema)
    unexpected = sorted(key for key in found if key not in EXCEPTIONS)
    assert not unexpected, f"champs statut/type déclarés en texte libre: {unexpected}"
    # The list does not rot: every exception is still a free string in the published contract.
    stale = sorted(key for key in EXCEPTIONS if key not in found)
    assert not stale, f"exceptions devenues inutiles: {stale}"
    # Reference-table codes say so, since a client cannot learn the values from the schema.
    for key, reason in EXCEPTIONS.items():
        if reason == REFERENCE_TABLE:
            assert "types de référence" in found[key].get("description", ""), key


async def test_response_enums_carry_the_spec_values(client):
    components = (await client.get("/openapi.json")).json()["components"]["schemas"]

    def values(model: str, field: str) -> set[str]:
        prop = components[model]["properties"][field]
        ref = prop.get("$ref") or next(b["$ref"] for b in prop.get("anyOf", []) if "$ref" in b)
        return set(components[ref.rsplit("/", 1)[-1]]["enum"])

    assert values("AdhesionResponse", "statut") == {"EN_ATTENTE", "APPROUVEE", "REJETEE", "PAYEE", "ANNULEE"}
    assert "EN_RETARD" in values("CotisationResponse", "statut")
    assert {"WAVE", "ESPECES"} <= values("PaiementResponse", "methode")
    assert values("OrganisationResponse", "typeOrganisation") >= {"UNION", "ASSOCIATION"}
    assert values("JournalComptableResponse", "type") >= {"CAISSE", "CLOTURE"}
    assert values("ExerciceResponse", "statut") == {"OUVERT", "CLOTURE"}
    assert values("LivraisonWebhookResponse", "statut") == {"EN_ATTENTE", "LIVREE", "ECHOUEE"}
