"""Exports over ``tache_seuil_export_lignes`` rows, written by a background task (export/jobs.py).

The task must export exactly what the caller could see when asking, so its parameters hold the export's name,
format, filters and day, and a snapshot of the caller's resolved visibility (subject, roles, memberships,
active organisation and role, as ``core/auth.py`` resolved them for that request). The task rebuilds the
``AuthContext`` from that snapshot and the scoped statement through the same ``ExportService`` method, without
auditing it again: the request wrote the audit entry (docs/decisions.md, "Exports en tâche de fond")."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from pydantic import TypeAdapter

from unionflow.core.auth import AuthContext
from unionflow.export.formats import FormatExport
from unionflow.export.repository import (
    AdhesionExportFilters,
    AuditExportFilters,
    CotisationExportFilters,
    EcritureExportFilters,
    MembreExportFilters,
    PaiementExportFilters,
)

# Export name (as in the file name and the audit entry) → its filters and the ExportService method.
EXPORTS: dict[str, tuple[type[Any], str]] = {
    "membres": (MembreExportFilters, "membres"),
    "cotisations": (CotisationExportFilters, "cotisations"),
    "paiements": (PaiementExportFilters, "paiements"),
    "adhesions": (AdhesionExportFilters, "adhesions"),
    "grand-livre": (EcritureExportFilters, "ecritures"),
    "journal-audit": (AuditExportFilters, "audit"),
}


def parametres_tache(auth: AuthContext, name: str, fmt: FormatExport, filters: Any, today: date) -> dict[str, Any]:
    return {
        "export": name, "format": fmt.value, "date": today.isoformat(),
        "filtres": TypeAdapter(type(filters)).dump_python(filters, mode="json"),
        "appelant": {
            "sub": auth.sub, "email": auth.email, "username": auth.username,
            "realmRoles": sorted(auth.realm_roles), "roles": sorted(auth.roles),
            "membreId": str(auth.membre_id) if auth.membre_id else None,
            "memberships": {str(org): sorted(roles) for org, roles in auth.memberships.items()},
            "activeOrganisationId": str(auth.active_organisation_id) if auth.active_organisation_id else None,
            "activeRole": auth.active_role,
        },
    }


def appelant(parametres: dict[str, Any]) -> AuthContext:
    a = parametres["appelant"]
    return AuthContext(
        sub=a["sub"], email=a["email"], username=a["username"], realm_roles=frozenset(a["realmRoles"]),
        roles=frozenset(a["roles"]), membre_id=uuid.UUID(a["membreId"]) if a["membreId"] else None,
        memberships={uuid.UUID(org): frozenset(roles) for org, roles in a["memberships"].items()},
        active_organisation_id=uuid.UUID(a["activeOrganisationId"]) if a["activeOrganisationId"] else None,
        active_role=a["activeRole"])


def filtres(parametres: dict[str, Any]) -> Any:
    cls, _method = EXPORTS[parametres["export"]]
    return TypeAdapter(cls).validate_python(parametres["filtres"])
