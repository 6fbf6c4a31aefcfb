from __future__ import annotations

import json
import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import InputModel, OutputModel, regle_metier
from unionflow.models.audit import Severite

CODE_PATTERN = r"^[A-Za-z][A-Za-z0-9_.\-]*$"
MAX_DETAILS_BYTES = 16_384


class AuditSortField(StrEnum):
    """Sortable fields: the documented ones (dateHeure and the search filters), each backed by an index."""

    DATE_HEURE = "dateHeure"
    MODULE = "module"
    SEVERITE = "severite"
    TYPE_ACTION = "typeAction"
    UTILISATEUR = "utilisateur"
    IP_ADDRESS = "ipAddress"


class SortOrder(StrEnum):
    ASC = "asc"
    DESC = "desc"


class CreateAuditLogRequest(InputModel):
    """An entry recorded by a client (e.g. an export made on the mobile app). Who, from where and when are set by
    the server: they cannot be supplied."""

    type_action: str = Field(min_length=1, max_length=50, pattern=CODE_PATTERN, description="ex. EXPORT")
    module: str = Field(min_length=1, max_length=50, pattern=CODE_PATTERN, description="ex. COTISATIONS")
    description: str | None = Field(default=None, max_length=5000)
    entite_type: str | None = Field(default=None, max_length=50)
    entite_id: str | None = Field(default=None, max_length=64)
    severite: Severite = Severite.INFO
    details: dict[str, Any] | None = Field(default=None, description=f"Objet JSON, {MAX_DETAILS_BYTES} octets max")

    @field_validator("details")
    @classmethod
    def _small(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None and len(json.dumps(value, default=str).encode()) > MAX_DETAILS_BYTES:
            raise regle_metier(f"details dépasse {MAX_DETAILS_BYTES} octets")
        return value


class AuditLogResponse(OutputModel):
    id: uuid.UUID
    date_heure: datetime
    utilisateur: str | None
    utilisateur_id: str | None
    role_actif: str | None
    organisation_id: uuid.UUID | None
    type_action: str
    module: str
    entite_type: str | None
    entite_id: str | None
    description: str | None
    details: dict[str, Any] | None
    ip_address: str | None
    user_agent: str | None
    severite: Severite
    request_id: str | None = Field(None, description="X-Request-ID de la requête à l'origine de l'entrée "
                                                     "(journaux: GET /api/logs?requestId=…)")


class AuditStatistiques(ResultatCalcule):
    total: int
    dernieres_24h: int = Field(alias="dernieres24h")
    derniers_7_jours: int = Field(alias="derniers7Jours")
    par_module: dict[str, int]
    par_severite: dict[str, int]
    par_type_action: dict[str, int]
    premiere_entree: datetime | None
    derniere_entree: datetime | None
    genere_le: datetime
    perimetre: str = Field(description="UNION (toutes les entrées) ou ORGANISATIONS (celles de vos organisations)")
