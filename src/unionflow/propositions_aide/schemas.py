from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.regles import Si
from unionflow.core.schemas import InputModel, Montant, OutputModel, UpdateModel
from unionflow.demandes_aide.schemas import TypeAide
from unionflow.models.proposition_aide import NatureProposition, StatutProposition
from unionflow.types_reference.schemas import code_du_domaine


class CreatePropositionAideRequest(InputModel):
    regles = (Si("nature", NatureProposition.FINANCIERE, "montant: obligatoire pour une aide FINANCIERE",
                 requis=("montant",)),)

    organisation_id: uuid.UUID
    type: TypeAide = Field(description="Mêmes types que les demandes d'aide: " + code_du_domaine("TYPE_AIDE"))
    nature: NatureProposition
    titre: str = Field(min_length=3, max_length=200)
    description: str = Field(min_length=3, max_length=5000)
    montant: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2,
                                    description="Obligatoire pour une aide FINANCIERE")
    disponibilite: str | None = Field(default=None, max_length=500, description="ex. « les week-ends »")
    disponible_jusqu_au: date | None = None


class UpdatePropositionAideRequest(UpdateModel):
    nullable_fields = frozenset({"montant", "disponibilite", "disponible_jusqu_au"})
    type: TypeAide | None = None
    nature: NatureProposition | None = None
    titre: str | None = Field(default=None, min_length=3, max_length=200)
    description: str | None = Field(default=None, min_length=3, max_length=5000)
    montant: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2)
    disponibilite: str | None = Field(default=None, max_length=500)
    disponible_jusqu_au: date | None = None


class LierRequest(InputModel):
    demande_aide_id: uuid.UUID


class CloturerRequest(InputModel):
    motif: str | None = Field(default=None, max_length=1000)


class PropositionAideResponse(OutputModel):
    id: uuid.UUID
    numero_reference: str
    organisation_id: uuid.UUID
    membre_id: uuid.UUID
    type: str = Field(validation_alias="type_aide",
                      description=code_du_domaine("TYPE_AIDE"))
    nature: NatureProposition
    titre: str
    description: str
    montant: Montant | None
    devise: str
    disponibilite: str | None
    disponible_jusqu_au: date | None
    statut: StatutProposition
    demande_aide_id: uuid.UUID | None
    date_reservation: datetime | None
    reserve_par: str | None
    date_cloture: datetime | None
    motif_cloture: str | None
    created_at: datetime
    updated_at: datetime
