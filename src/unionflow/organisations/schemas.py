from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, field_validator

from unionflow.core.email import Email
from unionflow.core.roles import Role
from unionflow.core.schemas import InputModel, OutputModel, UpdateModel
from unionflow.core.telephone import verifier_national
from unionflow.models.organisation import StatutOrganisation, TypeOrganisation

# Depth in the union's hierarchy: a parent must sit strictly above its child.
NIVEAU = {
    TypeOrganisation.UNION: 0,
    TypeOrganisation.FEDERATION: 1,
    TypeOrganisation.ASSOCIATION: 2,
    TypeOrganisation.MUTUELLE: 2,
    TypeOrganisation.COOPERATIVE: 2,
    TypeOrganisation.TONTINE: 2,
}


PHONE_PATTERN = r"^\+[1-9]\d{6,14}$"
COUNTRY_PATTERN = r"^[A-Z]{2}$"
CURRENCY_PATTERN = r"^[A-Z]{3}$"
TELEPHONE = ("E.164, ex. +221771234567; le numéro national est vérifié pour les pays de la sous-région (sinon 400 "
             "regle-metier avec la raison)")


class CreateOrganisationRequest(InputModel):
    nom: str = Field(min_length=2, max_length=200)
    nom_court: str | None = Field(default=None, max_length=50)
    type_organisation: TypeOrganisation
    parent_id: uuid.UUID | None = None
    description: str | None = Field(default=None, max_length=5000)
    email: Email | None = None
    telephone: str | None = Field(default=None, pattern=PHONE_PATTERN, description=TELEPHONE)
    adresse: str | None = Field(default=None, max_length=300)
    ville: str | None = Field(default=None, max_length=100)
    region: str | None = Field(default=None, max_length=100)
    pays: str = Field(default="SN", pattern=COUNTRY_PATTERN, description="Code pays ISO 3166-1 alpha-2")
    devise: str | None = Field(default=None, pattern=CURRENCY_PATTERN,
                               description="Code devise ISO 4217; absent: la configuration devise.defaut (XOF)")

    _telephone = field_validator("telephone")(verifier_national)


class UpdateOrganisationRequest(UpdateModel):
    nullable_fields = frozenset({
        "nom_court", "parent_id", "description", "email", "telephone", "adresse", "ville", "region",
        "logo_document_id"})
    nom: str | None = Field(default=None, min_length=2, max_length=200)
    nom_court: str | None = Field(default=None, max_length=50)
    type_organisation: TypeOrganisation | None = None
    parent_id: uuid.UUID | None = None
    description: str | None = Field(default=None, max_length=5000)
    email: Email | None = None
    telephone: str | None = Field(default=None, pattern=PHONE_PATTERN, description=TELEPHONE)
    adresse: str | None = Field(default=None, max_length=300)
    ville: str | None = Field(default=None, max_length=100)
    region: str | None = Field(default=None, max_length=100)
    pays: str | None = Field(default=None, pattern=COUNTRY_PATTERN)
    devise: str | None = Field(default=None, pattern=CURRENCY_PATTERN)
    logo_document_id: uuid.UUID | None = Field(
        default=None, description="Document image (PNG ou JPEG) de l'organisation imprimé sur ses reçus et états; "
                                  "null retire le logo")

    _telephone = field_validator("telephone")(verifier_national)


class SuspensionRequest(InputModel):
    motif: str = Field(min_length=3, max_length=500)


class OrganisationResponse(OutputModel):
    id: uuid.UUID
    nom: str
    nom_court: str | None
    type_organisation: TypeOrganisation
    statut: StatutOrganisation
    parent_id: uuid.UUID | None
    description: str | None
    email: str | None
    telephone: str | None
    adresse: str | None
    ville: str | None
    region: str | None
    pays: str
    devise: str
    motif_suspension: str | None
    logo_document_id: uuid.UUID | None = None
    created_at: datetime
    updated_at: datetime


class MonOrganisationResponse(OrganisationResponse):
    roles: list[Role] = Field(description="Rôles du membre connecté dans cette organisation")
