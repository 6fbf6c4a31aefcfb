from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.feedback import TypeFeedback


class CreateFeedbackRequest(InputModel):
    type: TypeFeedback
    note: int | None = Field(default=None, ge=1, le=5, description="Satisfaction de 1 à 5 (facultative)")
    message: str = Field(min_length=3, max_length=5000)
    contexte: str | None = Field(default=None, max_length=200,
                                 description="Écran ou fonction concernée, ex. « Paiement Wave »")
    version_application: str | None = Field(default=None, max_length=50)


class TraitementRequest(InputModel):
    commentaire: str | None = Field(default=None, max_length=2000, description="Suite donnée (interne)")


class FeedbackResponse(OutputModel):
    id: uuid.UUID
    type: TypeFeedback
    note: int | None
    message: str
    contexte: str | None
    version_application: str | None
    auteur_nom: str
    membre_id: uuid.UUID | None
    organisation_id: uuid.UUID | None
    traite: bool
    traite_par: str | None
    date_traitement: datetime | None
    commentaire_traitement: str | None
    created_at: datetime


class FeedbackStatistiques(ResultatCalcule):
    total: int
    non_traites: int
    note_moyenne: float | None = Field(description="Moyenne des notes données, arrondie à 2 décimales")
    nombre_notes: int
    par_type: dict[str, int]
