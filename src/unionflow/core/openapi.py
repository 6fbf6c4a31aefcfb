"""OpenAPI: tags as the spec's areas, security scheme ``IdentityProvider`` listing each route's roles,
every operation's problem responses declared, readable operationIds, unique schema names and binary bodies
typed as such, so that a client generated from ``/openapi.json`` compiles without warnings."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from unionflow.core.regles import REGLES_NOTE, state_form_rules
from unionflow.core.schemas import money_branches, money_pattern
from unionflow.core.texte import state_form_controls, state_parameter_controls

_PROBLEM_SCHEMA = {
    "type": "object",
    "description": (
        "RFC 9457 problem details. `type` tells why a request was refused, for a client (and a fuzzer) to "
        "tell a request that does not match this OpenAPI from one refused for a reason no schema can state. "
        "400 types: `https://unionflow.dev/problems/invalid-input` (the request does not match the operation's "
        "schema: unknown field, wrong type, out of bounds, missing), `.../regle-metier` (each field is valid but "
        "a rule no schema can state is broken: a cross-field rule written in the operation's description, a value "
        "checked against the editable reference table, file content), `.../invalid-state` (not possible in the "
        "record's current state), `.../invalid-grant` (token request: unknown credentials). Other statuses: "
        "`unauthenticated` 401, `forbidden` 403, `not-found` 404, `conflict` 409, `payload-too-large` 413, "
        "`idempotency-key-reused` 422, `too-many-requests` 429, `upstream-error` 502, `upstream-unavailable` / "
        "`service-unavailable` 503."),
    "properties": {
        "type": {"type": "string", "format": "uri",
                 "description": "https://unionflow.dev/problems/<slug>, e.g. invalid-input, regle-metier"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object", "properties": {
            "field": {"type": "string"}, "message": {"type": "string"}, "type": {"type": "string"}}}},
    },
    "required": ["type", "title", "status"],
}

_DESCRIPTIONS = {
    400: "Données invalides (`invalid-input`: la requête ne respecte pas ce schéma), règle métier non respectée "
         "(`regle-metier`) ou action impossible dans l'état actuel (`invalid-state`)",
    401: "Non authentifié: jeton absent, expiré ou invalide",
    403: "Accès refusé: rôle insuffisant ou organisation active non autorisée",
    404: "Ressource introuvable (ou hors de votre périmètre de visibilité)",
    405: "Méthode non autorisée: ce chemin concret désigne une autre ressource (un segment littéral à la place "
         "de l'identifiant), qui n'accepte pas cette méthode; en-tête Allow",
    409: "Conflit avec l'état actuel de la ressource",
    413: "Contenu trop volumineux (corps JSON au-delà de UNIONFLOW_MAX_JSON_BODY_BYTES, fichier au-delà de sa limite)",
    415: "Type de contenu non supporté (Content-Type autre que celui de l'opération)",
    422: "Clé d'idempotence réutilisée avec un autre contenu",
    429: "Trop de tentatives",
    500: "Erreur interne du serveur",
    502: "Service tiers en erreur",
    503: "Service momentanément indisponible (base de données, fournisseur d'identité ou service tiers); "
         "en-tête Retry-After",
}

AREAS = [
    "Adhésions", "Admin - Association", "Admin - Utilisateurs", "Alertes LCB-FT", "Analytics", "Audit",
    "Comptabilité", "Compte Adhérent", "Configuration", "Cotisations", "Dashboard", "Dashboard Membre",
    "Demandes d'aide", "Documents", "Export", "Favoris", "Feedback", "Finance - Approvals",
    "Finance - Budgets", "Finance - Workflow", "Logs & Monitoring", "Membres", "Messagerie",
    "Notifications", "Organisations", "Paiements", "Paramètres LCB-FT", "Propositions d'aide", "Préférences",
    "Rôles", "Sauvegardes", "Status", "Suggestions", "Système", "Tickets", "Types de référence",
    "Versements", "Wave Mobile Money", "Événements", "Authentification",
    "Admin - Clients API", "Webhooks", "USSD", "Données personnelles",
]


# One sentence per tag: what the area holds (Redocly and Spectral ask every tag for one).
AREA_DESCRIPTIONS = {
    "Adhésions": "Demandes d'adhésion d'une personne à une organisation: dépôt, approbation, rejet, frais.",
    "Admin - Association": "Rattachement d'un compte utilisateur à une organisation.",
    "Admin - Utilisateurs": "Comptes du fournisseur d'identité intégré: création, rôles, rattachement.",
    "Alertes LCB-FT": "Alertes de lutte contre le blanchiment et le financement du terrorisme, et leur suivi.",
    "Analytics": "Indicateurs et séries calculés sur les membres, cotisations et paiements.",
    "Audit": "Journal d'audit: qui a fait quoi, quand, sur quelle ressource.",
    "Comptabilité": "Plan comptable, journaux, écritures et états comptables par organisation.",
    "Compte Adhérent": "Vue d'un adhérent sur son propre compte: cotisations, paiements, situation.",
    "Configuration": "Paramètres de l'application modifiables par l'administration.",
    "Cotisations": "Cotisations dues par les membres: création, génération, paiement, statistiques.",
    "Dashboard": "Tableaux de bord des responsables et de la trésorerie.",
    "Dashboard Membre": "Tableau de bord d'un membre.",
    "Demandes d'aide": "Demandes d'aide solidaire des membres et leur instruction.",
    "Documents": "Envoi, consultation et téléchargement de documents, avec leur visibilité.",
    "Export": "Exports de données (CSV, PDF), directs ou en tâche de fond.",
    "Favoris": "Raccourcis enregistrés par chaque utilisateur.",
    "Feedback": "Retours des utilisateurs sur l'application.",
    "Finance - Approvals": "Approbations financières à deux personnes.",
    "Finance - Budgets": "Budgets des organisations et leur suivi.",
    "Finance - Workflow": "Statistiques des approbations et piste d'audit des finances.",
    "Logs & Monitoring": "Journaux système, métriques, alertes et exécutions des tâches planifiées.",
    "Membres": "Membres des organisations: fiche, recherche, statut.",
    "Messagerie": "Conversations et messages entre utilisateurs.",
    "Notifications": "Notifications par e-mail et SMS, modèles et envois.",
    "Organisations": "Organisations de l'union (union, fédérations, associations, mutuelles) et leur hiérarchie.",
    "Paiements": "Paiements enregistrés, déclarés ou reçus par Wave, reçus et confirmations.",
    "Paramètres LCB-FT": "Seuils et règles de la surveillance LCB-FT.",
    "Propositions d'aide": "Propositions d'aide et leur rapprochement avec les demandes d'aide.",
    "Préférences": "Préférences de chaque utilisateur: langue, thème, canaux de notification.",
    "Rôles": "Rôles et permissions de l'application.",
    "Sauvegardes": "Sauvegardes de la base, leur planification et leur restauration.",
    "Status": "Santé du service et de ses dépendances.",
    "Suggestions": "Idées proposées à une organisation, votes des membres et décision du bureau.",
    "Système": "Informations sur l'installation.",
    "Tickets": "Demandes d'assistance et leur traitement.",
    "Types de référence": "Listes de valeurs de référence modifiables (types, catégories).",
    "Versements": "Versements sortants (Wave ou manuels), préparés puis confirmés par une seconde personne.",
    "Wave Mobile Money": "Paiements Wave: sessions de paiement, webhooks, solde.",
    "Événements": "Événements des organisations et inscriptions.",
    "Authentification": "Jetons OAuth 2.0 / OIDC du fournisseur intégré, clés publiques, mot de passe.",
    "Admin - Clients API": "Clients OAuth 2.0 (client_credentials) des intégrations.",
    "Webhooks": "Abonnements aux webhooks sortants et leurs livraisons signées.",
    "Données personnelles": "Extension (loi n° 2008-12): consentements aux données sensibles, journal des accès aux "
                            "fiches des membres, registre des traitements.",
    "USSD": "Libre-service des membres depuis un téléphone simple: rappel de la passerelle USSD, code PIN.",
}


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    """Extra problem responses a route declares beyond the ones every operation gets."""
    return {code: {"description": _DESCRIPTIONS.get(code, "Erreur"), "model": None} for code in codes}


# Routers moved to another package keep the key they were published under: it also names the inline schemas of
# list responses (« Response <key> <function> »), which generated clients may have taken as type names.
_CLES_PUBLIEES = {
    "unionflow.clotures.exercice.router": "comptabilite_etats",
    "unionflow.clotures.deverrouillage.router": "comptabilite_deverrouillage",
    "unionflow.clotures.mensuelle.router": "clotures",
}


def route_key(route: APIRoute) -> str:
    """FastAPI's internal id of a route (``<package>_<function>``), unique and ASCII; it names request body models
    (``Body_<key>``) until :func:`operation_ids` gives the published, path-derived operationIds."""
    module = route.endpoint.__module__
    area = module.removeprefix("unionflow.").removesuffix("router").strip("._").replace(".", "_")
    area = _CLES_PUBLIEES.get(module, area)
    return f"{area}_{route.endpoint.__name__}"


# The name app.py passes as ``generate_unique_id_function``.
operation_id = route_key

_COLLECTION_VERBS = {"get": "lister", "post": "creer", "put": "modifier", "patch": "modifier", "delete": "supprimer"}
_ITEM_VERBS = {**_COLLECTION_VERBS, "get": "obtenir"}
# The few routes the rules below would name badly: singletons at an area's root and paths whose last literal is
# not a noun the action can be read from.
_OVERRIDES = {
    ("get", "/api/status"): "status_obtenir",
    ("get", "/metrics"): "metrics_obtenir",
    ("get", "/api/recus/verifier/{numero}"): "recus_verifier",
    ("put", "/api/roles/membres/{membreId}/organisations/{organisationId}"): "roles_attribuer",
}


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", ascii_text)
    return re.sub(r"[^a-zA-Z0-9]+", "_", ascii_text).strip("_").lower()


def _is_param(segment: str) -> bool:
    return segment.startswith("{")


def _derive(path: str, method: str, operations: dict[str, set[str]]) -> str:
    """``<area>_<action>`` from the (French) path; see docs/decisions.md "operationIds"."""
    segments = [s for s in path.split("/") if s]
    if segments[0] == "api":
        segments = segments[1:]
    area, rest = _slug(segments[0]), segments[1:]
    nouns = [_slug(s) for s in rest if not _is_param(s)]
    if not rest:  # the area's own collection
        return f"{area}_{_COLLECTION_VERBS[method]}"
    if _is_param(rest[-1]):
        before = rest[:-1]
        parent = path.rsplit("/", 1)[0]
        if not before or _is_param(before[-1]) or parent in operations:  # an item of a (sub-)collection
            return "_".join([area, *nouns, _ITEM_VERBS[method]])
        # ``/membre/{membreId}``: records looked up by a field; a number or a code names one record.
        key, param = _slug(before[-1]), rest[-1].strip("{}")
        single = param.startswith(("numero", "code", "cle")) or "put" in operations[path]
        verb = _ITEM_VERBS[method] if method != "get" else ("obtenir" if single else "lister")
        return "_".join([area, *nouns[:-1], verb, "par", key])
    methods = operations[path]
    if any(other.startswith(path + "/{") for other in operations) or (len(methods) > 1 and "post" in methods):
        return "_".join([area, *nouns, _COLLECTION_VERBS[method]])
    if len(methods) > 1:  # a singleton read and replaced (``/me``, ``/config``)
        return "_".join([area, *nouns, _ITEM_VERBS[method]])
    return "_".join([area, *nouns])  # an action (``/{id}/approuver``) or a view (``/en-attente``)


def operation_ids(operations: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    """French, ASCII, snake_case operationIds for every ``(method, path)``, derived from the paths alone (plus
    :data:`_OVERRIDES`): ``adhesions_approuver``, ``adhesions_lister``, ``adhesions_lister_par_membre``. Two
    operations that would share an id each get their method's verb appended; any id still shared is a bug."""
    ids = {(m, p): _OVERRIDES.get((m, p)) or _derive(p, m, operations) for p, ms in operations.items() for m in ms}
    counts = Counter(ids.values())
    for (method, path), name in list(ids.items()):
        if counts[name] > 1 and (method, path) not in _OVERRIDES:
            verbs = _ITEM_VERBS if _is_param(path.rsplit("/", 1)[-1]) else _COLLECTION_VERBS
            ids[(method, path)] = f"{name}_{verbs[method]}"
    shared = [name for name, n in Counter(ids.values()).items() if n > 1]
    if shared:
        raise RuntimeError(f"operationIds en double: {shared}")
    return ids


def _rename_operations(schema: dict[str, Any]) -> dict[str, Any]:
    """Publish the path-derived operationIds; request body models FastAPI named after the internal route key
    (``Body_<key>``) follow their operation."""
    paths = schema.get("paths", {})
    operations = {path: {m for m in ops if m in _COLLECTION_VERBS} for path, ops in paths.items()}
    ids = operation_ids(operations)
    bodies = {}
    for (method, path), new in ids.items():
        op = paths[path][method]
        bodies[f"Body_{op.get('operationId')}"] = f"Body_{new}"
        op["operationId"] = new
    present = set(schema.get("components", {}).get("schemas", {}))
    return _rename_schemas(schema, {old: new for old, new in bodies.items() if old in present and old != new})


_JSON_TYPES = ("application/json", "application/problem+json")


def _unique_schema_names(schema: dict[str, Any]) -> dict[str, Any]:
    """Two areas may each name a model ``ParticipantResponse``; pydantic then emits module-qualified names
    (``unionflow__evenements__schemas__ParticipantResponse``) that generators mangle or drop. The area whose
    name the model carries keeps the plain name, the others are prefixed with their area."""
    qualified = [name for name in schema.get("components", {}).get("schemas", {}) if "__" in name]
    renames = {}
    for name in qualified:
        parts = name.split("__")
        area, model = parts[1], parts[-1]
        owner = area[:6].lower() in model.lower()
        renames[name] = model if owner else "".join(p.capitalize() for p in area.split("_")) + model
    return _rename_schemas(schema, renames)


def _rename_schemas(schema: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    if not renames:
        return schema
    text = json.dumps(schema)
    for old, new in renames.items():
        text = text.replace(f'"#/components/schemas/{old}"', f'"#/components/schemas/{new}"')
    renamed: dict[str, Any] = json.loads(text)
    components = renamed["components"]["schemas"]
    for old, new in renames.items():
        components[new] = components.pop(old)
        components[new]["title"] = new
    return renamed


def _uses_ids(op: dict[str, Any], path: str, components: dict[str, Any]) -> bool:
    """Whether the operation names a record that may not exist (or not be visible): an id in the path, an
    ``...Id`` query parameter, or a request body carrying a UUID."""
    if "{" in path or any(p.get("name", "").endswith("Id") for p in op.get("parameters", [])):
        return True
    for content in op.get("requestBody", {}).get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        body = components.get(ref.rsplit("/", 1)[-1], {}) if ref else content.get("schema", {})
        if '"uuid"' in json.dumps(body.get("properties", {})):
            return True
    return False


def _uuid_params(ops: dict[str, Any]) -> set[str]:
    return {f"{{{p['name']}}}" for op in ops.values() if isinstance(op, dict) for p in op.get("parameters", [])
            if p.get("in") == "path" and p.get("schema", {}).get("format") == "uuid"}


def shadowed_path(path: str, method: str, paths: dict[str, dict[str, Any]]) -> str | None:
    """The concrete path (other parameters left as ``{name}``) if a text in place of one of this template's
    UUIDs makes another operation's path that lacks ``method`` (``POST /api/evenements/type/inscriptions`` is
    ``GET /api/evenements/type/{type}``): the answer is then 405 with that resource's ``Allow``
    (core/routing.py), not 404."""
    mine = _uuid_params(paths[path])
    segments = path.split("/")
    for other, ops in paths.items():
        parts = other.split("/")
        if method in ops or len(parts) != len(segments):
            continue
        theirs = _uuid_params(ops)
        pairs = list(zip(segments, parts, strict=True))
        # Where this path has text, the other's parameter must take text; where it has a UUID, the other a text.
        if all(a == b or (_is_param(a) and not _is_param(b)) or (_is_param(b) and b not in theirs)
               or (_is_param(a) and _is_param(b)) for a, b in pairs) \
                and any(a in mine and not _is_param(b) for a, b in pairs):
            return "/".join(b if _is_param(a) and not _is_param(b) else a for a, b in pairs)
    return None


def _codes_for(op: dict[str, Any], path: str, method: str, components: dict[str, Any]) -> set[int]:
    codes = {400, 500}
    if _uses_ids(op, path, components):
        codes.add(404)
    headers = {p.get("name", "").lower() for p in op.get("parameters", []) if p.get("in") == "header"}
    if "idempotency-key" in headers:
        codes |= {409, 422}
    if "multipart/form-data" in op.get("requestBody", {}).get("content", {}):
        codes.add(413)
    if method in ("post", "put", "patch", "delete") and "{" in path:
        codes.add(409)
    return codes


_PYDANTIC_ONLY = ("ge", "gt", "le", "lt", "max_digits", "decimal_places")


def _money_bounds(node: Any) -> None:
    """An optional money field's bounds reach the schema as pydantic's own keys (``ge``, ``max_digits``):
    turn them into the pattern a string schema can state, and drop what JSON Schema does not know."""
    if isinstance(node, dict):
        decimal = node.get("format") == "decimal" or any(b.get("format") == "decimal" for b in node.get("oneOf", ()))
        if decimal and any(k in node for k in _PYDANTIC_ONLY):
            if "oneOf" in node:  # input: string or number, both bounded
                node["oneOf"] = money_branches(money_pattern(node))
            else:
                node["pattern"] = money_pattern(node)
            for key in _PYDANTIC_ONLY:
                node.pop(key, None)
        for value in node.values():
            _money_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _money_bounds(value)


def _refs(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)
    return found


def _reachable(roots: set[str], schemas: dict[str, Any]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo += _refs(schemas[name], set())
    return seen


def _request_defaults(schema: dict[str, Any]) -> None:
    """A request field with a default is optional, but ``openapi-typescript`` (``defaultNonNullable``, on by
    default) types every property carrying ``default`` as present, so a client omitting ``pays`` did not compile
    (finding 13). In request-only schemas the default is stated in the description and as
    ``x-default`` instead of the ``default`` annotation; the server still applies it."""
    schemas = schema.get("components", {}).get("schemas", {})
    bodies: set[str] = set()
    answers: set[str] = set()
    for ops in schema.get("paths", {}).values():
        for op in ops.values():
            _refs(op.get("requestBody", {}), bodies)
            _refs(op.get("responses", {}), answers)
    for name in _reachable(bodies, schemas) - _reachable(answers, schemas):
        required = set(schemas[name].get("required", ()))
        for field, prop in schemas[name].get("properties", {}).items():
            if "default" not in prop or field in required:
                continue
            default = prop.pop("default")
            prop["x-default"] = default
            if default is not None:
                note = f"Défaut: `{json.dumps(default, ensure_ascii=False)}`."
                description = prop.get("description", "")
                separator = "" if not description else " " if description.endswith(".") else ". "
                prop["description"] = f"{description}{separator}{note}"


def _binary_bodies(op: dict[str, Any]) -> None:
    for response in op.get("responses", {}).values():
        for media, content in response.get("content", {}).items():
            if media not in _JSON_TYPES:
                content["schema"] = {"type": "string", "format": "binary"}


def _state_body_rules(op: dict[str, Any], schemas: dict[str, Any]) -> None:
    """An operation whose body declares cross-field rules (core.regles, in the body's schema) says so."""
    bodies = _reachable(_refs(op.get("requestBody", {}), set()), schemas)
    if any(REGLES_NOTE in schemas[name].get("description", "") for name in bodies):
        op["description"] = (op.get("description") or "") + (
            "\n\nRègles entre champs du corps: énoncées dans son schéma (`allOf`); sinon 400 `regle-metier`.")


def _drop_unreferenced(schemas: dict[str, Any], schema: dict[str, Any], names: tuple[str, ...]) -> None:
    """FastAPI's 422 models, in order: every 422 became a 400 problem (core/errors.py), nothing refers to them."""
    for name in names:
        ref = f'"#/components/schemas/{name}"'
        if name in schemas and ref not in json.dumps({k: v for k, v in schema.items() if k != "components"}) \
                and ref not in json.dumps({k: v for k, v in schemas.items() if k != name}):
            del schemas[name]


def install_openapi(app: FastAPI) -> None:
    from unionflow.core.routing import api_routes

    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description,
                             routes=app.routes, tags=[{"name": a, "description": AREA_DESCRIPTIONS[a]} for a in AREAS])
        schema = _rename_operations(_unique_schema_names(schema))
        _money_bounds(schema)
        _request_defaults(schema)
        # Relative to where the schema is served: right behind any proxy or port (no servers).
        schema["servers"] = [{"url": "/", "description": "Ce serveur (adresse du document OpenAPI)"}]
        components = schema.setdefault("components", {})
        components.setdefault("schemas", {})["Problem"] = _PROBLEM_SCHEMA
        components.setdefault("securitySchemes", {})["IdentityProvider"] = {
            "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
            "description": "Jeton OIDC RS256 (fournisseur intégré ou Keycloak); rôles dans realm_access.roles",
        }
        for info in api_routes(app):
            if not info.route.include_in_schema:
                continue
            authorizer = info.authorizer
            for method in info.methods:
                op = schema["paths"].get(info.path, {}).get(method.lower())
                if op is None:
                    continue
                codes = _codes_for(op, info.path, method.lower(), components.get("schemas", {}))
                if shadowed_path(info.path, method.lower(), schema["paths"]):
                    codes.add(405)
                if authorizer:
                    # The authentication layer reads the principal and the signing keys from the database (or the
                    # external provider): 503 when they cannot answer.
                    codes |= {401, 403, 503}
                if "requestBody" in op:
                    codes |= {413, 415}  # core.middleware.RequestGuardMiddleware, core.routing.check_body
                responses = op.setdefault("responses", {})
                responses.pop("422", None)
                _binary_bodies(op)
                state_parameter_controls(op)
                state_form_controls(op, components.get("schemas", {}))
                state_form_rules(op, components.get("schemas", {}))
                _state_body_rules(op, components.get("schemas", {}))
                for code in sorted(codes | {int(c) for c in responses if str(c).isdigit() and int(c) >= 400}):
                    # A route may answer an error in another medium too (a public HTML page shown again with the
                    # reason): kept beside the problem.
                    autres = {media: contenu for media, contenu in
                              (responses.get(str(code)) or {}).get("content", {}).items() if media not in _JSON_TYPES}
                    responses[str(code)] = {
                        "description": _DESCRIPTIONS.get(code, "Erreur"),
                        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}},
                                    **autres},
                    }
                if authorizer:
                    roles = sorted(authorizer.role_set.roles)
                    op["security"] = [{"IdentityProvider": roles}]
                    op["x-role-set"] = authorizer.role_set.name
                    if authorizer.role_set.extension:
                        # Roles added to the spec's set: stated, so a reader sees the widening.
                        extension = sorted(authorizer.role_set.extension)
                        op["x-role-extension"] = extension
                        op["description"] = (op.get("description") or "") + (
                            f"\n\nExtension du jeu {authorizer.role_set.name} de la spécification: "
                            f"{', '.join(extension)}.")
                    op["description"] = (op.get("description") or "") + f"\n\nRôles autorisés: {', '.join(roles)}."
                else:
                    op["security"] = []
        _drop_unreferenced(components.get("schemas", {}), schema, ("HTTPValidationError", "ValidationError"))
        # The project's licence (pyproject.toml); no contact: each union that deploys it is its own (decisions).
        schema["info"]["license"] = {"name": "MIT", "identifier": "MIT"}
        app.openapi_schema = schema
        return schema

    app.openapi = build  # type: ignore[method-assign]
