from __future__ import annotations

import uuid

from pydantic import Field

from unionflow.core.email import Email
from unionflow.core.roles import Role, RoleOrganisation
from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.membre import StatutAppartenance


class AssocierOrganisationRequest(InputModel):
    email: Email = Field(description="E-mail du compte utilisateur (insensible à la casse)")
    organisation_id: uuid.UUID
    roles: list[RoleOrganisation] | None = Field(
        default=None, description="Rôles d'organisation; défaut MEMBRE à la création, inchangés sinon")


class AssociationResponse(OutputModel):
    membre_id: uuid.UUID
    numero_membre: str
    email: str
    organisation_id: uuid.UUID
    roles: list[Role]
    statut: StatutAppartenance = Field(description="Statut de l'appartenance (ACTIF)")
    membre_cree: bool = Field(description="Une fiche membre minimale a été créée")
    appartenance_creee: bool = Field(description="L'appartenance a été créée ou rouverte")
    compte_lie: bool = Field(description="La fiche est liée au compte local (user_sub)")
    modifie: bool = Field(description="false quand l'association existait déjà telle quelle (appel répété)")
