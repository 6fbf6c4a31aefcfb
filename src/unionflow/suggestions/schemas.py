from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel, UpdateModel
from unionflow.models.suggestion import CategorieSuggestion, StatutSuggestion


class CreateSuggestionRequest(InputModel):
    organisation_id: uuid.UUID = Field(description="Organisation à laquelle l'idée est proposée (membre actif)")
    titre: str = Field(min_length=3, max_length=200)
    description: str = Field(min_length=3, max_length=10000)
    categorie: CategorieSuggestion = CategorieSuggestion.AUTRE


class UpdateSuggestionRequest(UpdateModel):
    titre: str | None = Field(default=None, min_length=3, max_length=200)
    description: str | None = Field(default=None, min_length=3, max_length=10000)
    categorie: CategorieSuggestion | None = None


class ReponseSuggestionRequest(InputModel):
    statut: StatutSuggestion
    reponse: str | None = Field(default=None, max_length=5000,
                                description="Réponse du bureau; requise pour RETENUE et REJETEE")


class SuggestionResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    membre_id: uuid.UUID
    auteur_nom: str
    titre: str
    description: str
    categorie: CategorieSuggestion
    statut: StatutSuggestion
    nombre_votes: int
    a_vote: bool = Field(description="Le membre connecté a voté pour cette suggestion")
    votes_ouverts: bool = Field(description="Vote possible (SOUMISE ou EN_ETUDE)")
    reponse: str | None
    repondu_par: str | None
    date_reponse: datetime | None
    created_at: datetime
    updated_at: datetime


class VoteResponse(OutputModel):
    suggestion_id: uuid.UUID
    a_vote: bool
    nombre_votes: int
