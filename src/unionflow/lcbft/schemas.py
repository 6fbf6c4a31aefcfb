from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.lcbft import Decision, TypeAlerte


class TraiterAlerteRequest(InputModel):
    commentaire: str = Field(min_length=1, max_length=2000, description="Motif de la décision, obligatoire")
    decision: Decision = Field(default=Decision.SANS_SUITE, description="SANS_SUITE par défaut")


class AlerteResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    membre_id: uuid.UUID | None
    paiement_id: uuid.UUID | None
    type_alerte: TypeAlerte
    montant: Montant
    seuil: Montant
    montant_cumule: Montant | None
    periode_jours: int | None
    devise: str
    description: str
    date_alerte: datetime
    traitee: bool
    date_traitement: datetime | None
    traitee_par: str | None
    commentaire: str | None
    decision: Decision | None


class NonTraiteesResponse(ResultatCalcule):
    organisation_id: uuid.UUID | None
    non_traitees: int


Seuil = Field(ge=0, max_digits=18, decimal_places=2)


class ParametresLcbFtRequest(InputModel):
    seuil_operation: Montant = Seuil
    seuil_cumul: Montant = Seuil
    periode_cumul_jours: int = Field(ge=1, le=366)
    seuil_especes: Montant = Seuil


class ParametresLcbFtResponse(OutputModel):
    organisation_id: uuid.UUID
    seuil_operation: Montant
    seuil_cumul: Montant
    periode_cumul_jours: int
    seuil_especes: Montant
    devise: str
    personnalise: bool = Field(description="false: valeurs par défaut de la configuration (clés lcbft.*)")
    modifie_par: str | None = None
    updated_at: datetime | None = None
