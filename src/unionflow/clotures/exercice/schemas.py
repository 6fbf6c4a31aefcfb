"""Lock date and fiscal-year closing: JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.cloture import StatutExercice


class VerrouillageRequest(InputModel):
    organisation_id: uuid.UUID
    date_verrouillage: date = Field(description="Aucune écriture datée de ce jour ou avant ne peut être passée")


class VerrouillageResponse(OutputModel):
    organisation_id: uuid.UUID
    date_verrouillage: date | None
    modifie_par: str | None


class ClotureRequest(InputModel):
    organisation_id: uuid.UUID


class ExerciceResponse(OutputModel):
    organisation_id: uuid.UUID
    annee: int
    statut: StatutExercice = Field(description="OUVERT ou CLOTURE")
    resultat: Montant | None
    ecriture_cloture_id: uuid.UUID | None
    cloture_par: str | None
    date_cloture: datetime | None
