from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from unionflow.core.schemas import OutputModel
from unionflow.models.planificateur import StatutTache, TypeTache


class TacheResponse(OutputModel):
    id: uuid.UUID
    type: TypeTache
    statut: StatutTache
    progression: int = Field(ge=0, le=100, description="Pourcentage accompli (100 une fois TERMINEE)")
    total: int | None = Field(description="Éléments à traiter (ex. membres actifs)")
    traites: int = Field(description="Éléments traités jusqu'ici")
    resultat: dict[str, Any] | None = Field(
        description="Bilan une fois TERMINEE, ex. la réponse de la génération {membresActifs, creees, ignorees}")
    lien_resultat: str | None = Field(description="Ressource produite par la tâche, s'il y en a une")
    message_erreur: str | None
    organisation_id: uuid.UUID | None
    date_creation: datetime
    date_debut: datetime | None
    date_fin: datetime | None
