from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import OutputModel
from unionflow.models.planificateur import StatutExecution


class ExecutionJobResponse(OutputModel):
    id: uuid.UUID
    job: str = Field(description="marquer-retards, envoyer-notifications, surveiller, sauvegarder, nettoyer")
    declenchement: str = Field(description="PLANIFIE (planificateur)")
    hote: str = Field(description="Hôte:pid du planificateur qui a exécuté le job")
    statut: StatutExecution
    date_debut: datetime
    date_fin: datetime | None
    duree_ms: int | None
    compteurs: dict[str, int] = Field(description="Ce que le job a traité, ex. {envoyees, reportees, echouees}")
    message_erreur: str | None


class PlanificationJobResponse(OutputModel):
    job: str
    description: str
    intervalle_secondes: int = Field(description="0: job désactivé")
    prochaine_execution: datetime | None = Field(description="null tant qu'aucun planificateur n'a démarré")
    en_cours_par: str | None = Field(description="Planificateur qui exécute le job en ce moment")
