"""OpenAPI: tags as the spec's areas, security scheme ``IdentityProvider`` listing each route's roles,
and every operation's problem responses declared."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

_PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details",
    "properties": {
        "type": {"type": "string", "format": "uri"},
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
    400: "Données invalides (champ inconnu, type, pagination, statut) ou action impossible dans l'état actuel",
    401: "Non authentifié: jeton absent, expiré ou invalide",
    403: "Accès refusé: rôle insuffisant ou organisation active non autorisée",
    404: "Ressource introuvable (ou hors de votre périmètre de visibilité)",
    409: "Conflit avec l'état actuel de la ressource",
    413: "Contenu trop volumineux",
    422: "Clé d'idempotence réutilisée avec un autre contenu",
    429: "Trop de tentatives",
    500: "Erreur interne du serveur",
    502: "Service tiers en erreur",
    503: "Service tiers indisponible",
}

AREAS = [
    "Adhésions", "Admin - Association", "Admin - Utilisateurs", "Alertes LCB-FT", "Analytics", "Audit",
    "Comptabilité", "Compte Adhérent", "Configuration", "Cotisations", "Dashboard", "Dashboard Membre",
    "Demandes d'aide", "Documents", "Export", "Favoris", "Feedback", "Finance - Approvals",
    "Finance - Budgets", "Finance - Workflow", "Logs & Monitoring", "Membres", "Messagerie",
    "Notifications", "Organisations", "Paiements", "Paramètres LCB-FT", "Propositions d'aide", "Préférences",
    "Rôles", "Sauvegardes", "Status", "Suggestions", "Système", "Tickets", "Types de référence",
    "Versements", "Wave Mobile Money", "Événements", "Authentification",
    "Admin - Clients API", "Webhooks",
]


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    """Extra problem responses a route declares beyond the ones every operation gets."""
    return {code: {"description": _DESCRIPTIONS.get(code, "Erreur"), "model": None} for code in codes}


def install_openapi(app: FastAPI) -> None:
    from unionflow.core.routing import api_routes

    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description,
                             routes=app.routes, tags=[{"name": a} for a in AREAS])
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
                codes = {400, 500} | ({401, 403} if authorizer else set())
                if "{" in info.path:
                    codes.add(404)
                if any(p.get("name") == "Idempotency-Key" for p in op.get("parameters", [])):
                    # FastAPI's own 422 is dropped below (invalid input is 400); this one is the key reuse.
                    codes.add(422)
                responses = op.setdefault("responses", {})
                responses.pop("422", None)
                for code in sorted(codes | {int(c) for c in responses if str(c).isdigit() and int(c) >= 400}):
                    responses[str(code)] = {
                        "description": _DESCRIPTIONS.get(code, "Erreur"),
                        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
                    }
                if authorizer:
                    roles = sorted(authorizer.role_set.roles)
                    op["security"] = [{"IdentityProvider": roles}]
                    op["x-role-set"] = authorizer.role_set.name
                    op["description"] = (op.get("description") or "") + f"\n\nRôles autorisés: {', '.join(roles)}."
                else:
                    op["security"] = []
        app.openapi_schema = schema
        return schema

    app.openapi = build  # type: ignore[method-assign]
