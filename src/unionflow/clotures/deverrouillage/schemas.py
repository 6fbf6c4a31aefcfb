"""Reopening a locked period: JSON shapes of the requests to move the lock date back."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.cloture import StatutDeverrouillage


class CreateDeverrouillageRequest(InputModel):
    organisation_id: uuid.UUID
    date_verrouillage: date = Field(description="Nouvelle date de verrouillage, antérieure à l'actuelle: les jours "
                                                "qui la suivent redeviennent ouverts aux écritures")
    motif: str = Field(min_length=5, max_length=1000, description="Pourquoi la période doit être rouverte")


class DecisionDeverrouillageRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=1000)


class RejetDeverrouillageRequest(InputModel):
    commentaire: str = Field(min_length=3, max_length=1000)


class DeverrouillageResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    date_actuelle: date = Field(description="Date de verrouillage au moment de la demande")
    date_demandee: date = Field(description="Date de verrouillage demandée (antérieure)")
    motif: str
    statut: StatutDeverrouillage
    demande_par: str
    role_demandeur: str
    date_demande: datetime
    decide_par: str | None
    role_decideur: str | None
    commentaire: str | None
    date_decision: datetime | None
