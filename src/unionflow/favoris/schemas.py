from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.favori import TypeCible


class CreateFavoriRequest(InputModel):
    type_cible: TypeCible
    cible_id: uuid.UUID


class FavoriResponse(OutputModel):
    id: uuid.UUID
    type_cible: TypeCible
    cible_id: uuid.UUID
    libelle: str | None = Field(description="Titre de l'événement, nom de l'organisation, du document ou du membre")
    disponible: bool = Field(description="false si la cible n'existe plus ou n'est plus visible (libellé masqué)")
    created_at: datetime


class FavoriStatut(OutputModel):
    favori: bool
    id: uuid.UUID | None
