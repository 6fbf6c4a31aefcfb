from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from unionflow.core.schemas import OutputModel


class Portee(StrEnum):
    REALM = "REALM"
    ORGANISATION = "ORGANISATION"


class PorteePermission(StrEnum):
    ORGANISATION = "ORGANISATION"
    UNION = "UNION"


class MethodeHttp(StrEnum):
    GET = "GET"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"
    DELETE = "DELETE"


class OperationAutorisee(OutputModel):
    methode: MethodeHttp
    chemin: str
    resume: str | None
    domaine: str | None = Field(description="Tag OpenAPI de la route")
    role_set: str = Field(description="Ensemble de rôles de la route (ex. RS-READ)")


class RoleResponse(OutputModel):
    code: str
    libelle: str
    description: str
    portee: Portee = Field(description="REALM: rôle du compte (fournisseur d'identité); ORGANISATION: rôle "
                                       "tenu dans une organisation, attribué par appartenance")
    attribuable_en_organisation: bool
    permissions: list[PermissionAccordee] = Field(
        default_factory=list, description="Actions que ce rôle permet sur les enregistrements d'une organisation "
                                          "(table GRANTS, docs/authorization.md)")
    operations: list[OperationAutorisee] = Field(
        description="Opérations ouvertes à ce rôle, calculées à partir des routes de l'application")


class PermissionAccordee(OutputModel):
    code: str = Field(description="Permission nommée (core/permissions.py), ex. paiement.enregistrer")
    portee: PorteePermission = Field(
        description="ORGANISATION: dans les organisations où le rôle est tenu; UNION: toutes")
