from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field, field_validator

from unionflow.core.email import Email
from unionflow.core.regles import Si
from unionflow.core.roles import Role, RoleOrganisation
from unionflow.core.schemas import InputModel, OutputModel, UpdateModel, regle_metier
from unionflow.core.telephone import verifier_national
from unionflow.models.membre import Genre, StatutAppartenance, StatutMembre

PHONE_PATTERN = r"^\+[1-9]\d{6,14}$"
COUNTRY_PATTERN = r"^[A-Z]{2}$"


S = StatutMembre
# Allowed moves (docs/membres.md). RADIE is final; a suspension is lifted back to ACTIF before anything else.
TRANSITIONS: dict[StatutMembre, frozenset[StatutMembre]] = {
    S.ACTIF: frozenset({S.INACTIF, S.SUSPENDU, S.RADIE}),
    S.INACTIF: frozenset({S.ACTIF, S.SUSPENDU, S.RADIE}),
    S.SUSPENDU: frozenset({S.ACTIF, S.RADIE}),
    S.RADIE: frozenset(),
}
MOTIF_REQUIS = frozenset({S.SUSPENDU, S.RADIE})


def _past(value: date | None) -> date | None:
    if value is not None and (value > date.today() or value.year < 1900):
        # Relative to today: JSON Schema cannot state it (problem type regle-metier, said in the field's description).
        raise regle_metier("date de naissance invalide (passée, après 1900)")
    return value


TELEPHONE = ("E.164, ex. +221771234567; le numéro national est vérifié pour les pays de la sous-région (longueur, "
             "premiers chiffres: sinon 400 regle-metier avec la raison)")


class _MembreFields(InputModel):
    email: Email | None = None
    telephone: str | None = Field(default=None, pattern=PHONE_PATTERN, description=TELEPHONE)
    date_naissance: date | None = Field(default=None, description="Passée et postérieure à 1900 (sinon 400 "
                                                                "regle-metier)")
    genre: Genre | None = None
    profession: str | None = Field(default=None, max_length=100)
    adresse: str | None = Field(default=None, max_length=300)
    ville: str | None = Field(default=None, max_length=100)
    pays: str | None = Field(default=None, pattern=COUNTRY_PATTERN, description="ISO 3166-1 alpha-2")

    _naissance = field_validator("date_naissance")(_past)
    _telephone = field_validator("telephone")(verifier_national)


class CreateMembreRequest(_MembreFields):
    prenom: str = Field(min_length=1, max_length=100)
    nom: str = Field(min_length=1, max_length=100)
    organisation_id: uuid.UUID | None = Field(
        default=None, description="Organisation dont la personne devient membre (obligatoire hors SUPER_ADMIN/ADMIN)")
    roles: list[RoleOrganisation] | None = Field(default=None, description="Rôles dans l'organisation (défaut: MEMBRE)")


class UpdateMembreRequest(UpdateModel, _MembreFields):
    nullable_fields = frozenset({
        "ville", "telephone", "adresse", "email", "profession", "genre", "date_naissance", "pays"})
    prenom: str | None = Field(default=None, min_length=1, max_length=100)
    nom: str | None = Field(default=None, min_length=1, max_length=100)


class UpdateProfilRequest(InputModel):
    """What a member may change on their own record: personal contact details only."""

    telephone: str | None = Field(default=None, pattern=PHONE_PATTERN, description=TELEPHONE)
    adresse: str | None = Field(default=None, max_length=300)
    ville: str | None = Field(default=None, max_length=100)
    pays: str | None = Field(default=None, pattern=COUNTRY_PATTERN)

    _telephone = field_validator("telephone")(verifier_national)


class StatutRequest(InputModel):
    regles = tuple(Si("statut", statut, f"Un motif est obligatoire pour passer à {statut.value}", requis=("motif",))
                   for statut in sorted(MOTIF_REQUIS))

    statut: StatutMembre
    motif: str | None = Field(default=None, max_length=500, description="Obligatoire pour SUSPENDU et RADIE")


class CreateAppartenanceRequest(InputModel):
    organisation_id: uuid.UUID
    roles: list[RoleOrganisation] | None = Field(default=None, description="Rôles d'organisation (défaut: MEMBRE)")


class UpdateRolesRequest(InputModel):
    roles: list[RoleOrganisation] = Field(min_length=1, description="Rôles d'organisation; MEMBRE est toujours inclus")


class FinAppartenance(InputModel):
    motif: str | None = Field(default=None, max_length=500)


class MembreResponse(OutputModel):
    id: uuid.UUID
    numero_membre: str
    prenom: str
    nom: str
    email: str | None
    telephone: str | None
    date_naissance: date | None
    genre: Genre | None
    profession: str | None
    adresse: str | None
    ville: str | None
    pays: str | None
    statut: StatutMembre
    motif_statut: str | None
    date_statut: datetime | None
    compte_lie: bool = Field(description="Un compte du fournisseur d'identité est lié à cette fiche")
    created_at: datetime
    updated_at: datetime


class AppartenanceResponse(OutputModel):
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    organisation_nom: str
    roles: list[Role]
    statut: StatutAppartenance
    date_debut: date
    date_fin: date | None
