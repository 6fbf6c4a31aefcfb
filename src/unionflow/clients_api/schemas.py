from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, JsonValue

from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_STAFF_ROLES, Role
from unionflow.core.schemas import InputModel, OutputModel

_ROLES_CLIENT: list[JsonValue] = [r.value for r in sorted(GLOBAL_ROLES | ORGANISATION_STAFF_ROLES)]


class CreateClientApiRequest(InputModel):
    nom: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=1000)
    # The schema lists the roles a client may hold (no member record: no personal role); the service refuses the
    # others with 400 regle-metier, the French reason naming them.
    roles: list[Role] = Field(min_length=1, description="Rôles du client: ADMIN / SUPER_ADMIN (toute l'union) "
                                                        "ou rôles d'organisation (ADMIN_ORGANISATION, TRESORIER, …), "
                                                        "ceux-ci avec au moins une organisation (`organisationIds`, "
                                                        "sinon 400 `regle-metier`)",
                              json_schema_extra={"items": {"type": "string", "enum": _ROLES_CLIENT}})
    organisation_ids: list[uuid.UUID] = Field(default_factory=list, max_length=200,
                                              description="Organisations où s'appliquent les rôles d'organisation")


class ClientApiResponse(OutputModel):
    id: uuid.UUID
    client_id: str
    nom: str
    description: str | None
    roles: list[Role]
    organisation_ids: list[str]
    actif: bool
    cree_par: str | None
    created_at: datetime
    revoque_le: datetime | None
    revoque_par: str | None
    derniere_utilisation: datetime | None


class ClientApiCreatedResponse(ClientApiResponse):
    client_secret: str = Field(description="Affiché une seule fois: seule son empreinte argon2 est conservée")
