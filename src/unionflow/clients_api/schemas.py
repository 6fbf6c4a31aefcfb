from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import ConfigDict, Field, JsonValue
from pydantic.json_schema import JsonDict

from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_STAFF_ROLES, Role
from unionflow.core.schemas import InputModel, OutputModel

_ROLES_CLIENT: list[JsonValue] = [r.value for r in sorted(GLOBAL_ROLES | ORGANISATION_STAFF_ROLES)]
ORGANISATIONS_REQUISES = "Les rôles d'organisation exigent au moins une organisation (organisationIds)"
# Checked by the service (ClientApiService.creer, with this message), stated here: a role of the schema's list that
# is not a global one is an organisation role, and it needs at least one organisation.
_REGLE_ORGANISATIONS: JsonDict = {
    "description": ORGANISATIONS_REQUISES,
    "if": {"required": ["roles"], "properties": {"roles": {"contains": {
        "enum": [r.value for r in sorted(ORGANISATION_STAFF_ROLES)]}}}},
    "then": {"required": ["organisationIds"], "properties": {"organisationIds": {"minItems": 1}}}}


class CreateClientApiRequest(InputModel):
    model_config = ConfigDict(json_schema_extra={"allOf": [_REGLE_ORGANISATIONS]})

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
