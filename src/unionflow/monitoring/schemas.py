from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from unionflow.core.schemas import OutputModel, UpdateModel
from unionflow.models.journal import NiveauJournal
from unionflow.models.monitoring import NiveauAlerte


class AlerteSystemeResponse(OutputModel):
    id: uuid.UUID
    code: str = Field(description="Condition surveillée, ex. ESPACE_DISQUE_FAIBLE (une seule alerte ouverte par code)")
    niveau: NiveauAlerte
    titre: str
    message: str
    valeur_mesuree: float | None = Field(description="Dernière valeur mesurée (unité selon le code)")
    seuil: float | None = Field(description="Seuil configuré au moment de la dernière détection")
    date_creation: datetime
    date_derniere_detection: datetime
    nombre_detections: int
    resolue: bool = Field(description="true quand la condition a disparu (l'alerte reste acquittable)")
    date_resolution: datetime | None
    acquittee: bool
    acquittee_par: str | None
    date_acquittement: datetime | None


class AlerteConfigResponse(OutputModel):
    seuil_latence_base_ms: int = Field(description="Alerte si une requête de test dépasse cette durée (ms)")
    seuil_espace_disque_libre_pourcent: float = Field(
        description="Alerte si l'espace libre du répertoire de données descend sous ce pourcentage")
    seuil_echecs_connexion_heure: int = Field(description="Alerte au-delà de ce nombre d'échecs de connexion/heure")
    seuil_erreurs_audit_heure: int = Field(
        description="Alerte au-delà de ce nombre d'entrées d'audit ERROR/CRITICAL dans la dernière heure")
    delai_paiement_wave_heures: int = Field(
        description="Un paiement Wave EN_ATTENTE depuis plus de ce délai est considéré bloqué")
    seuil_paiements_wave_bloques: int = Field(description="Alerte au-delà de ce nombre de paiements Wave bloqués")
    seuil_alertes_lcb_ft_non_traitees: int = Field(
        description="Alerte au-delà de ce nombre d'alertes LCB-FT non traitées")
    intervalle_evaluation_secondes: int = Field(
        description="GET /api/alerts réévalue le système si la dernière évaluation est plus ancienne")
    derniere_evaluation: datetime | None
    date_modification: datetime | None
    modifie_par: str | None


class UpdateAlerteConfigRequest(UpdateModel):
    """Partial update: only the fields sent change; null is refused (and not offered by the schema), an empty
    body too (``minProperties``)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    seuil_latence_base_ms: int | None = Field(None, ge=1, le=60_000)
    seuil_espace_disque_libre_pourcent: float | None = Field(None, ge=0, le=100)
    seuil_echecs_connexion_heure: int | None = Field(None, ge=0, le=1_000_000)
    seuil_erreurs_audit_heure: int | None = Field(None, ge=0, le=1_000_000)
    delai_paiement_wave_heures: int | None = Field(None, ge=1, le=720)
    seuil_paiements_wave_bloques: int | None = Field(None, ge=0, le=1_000_000)
    seuil_alertes_lcb_ft_non_traitees: int | None = Field(None, ge=0, le=1_000_000)
    intervalle_evaluation_secondes: int | None = Field(None, ge=10, le=86_400)

    @model_validator(mode="after")
    def _not_empty(self) -> UpdateAlerteConfigRequest:
        if not self.model_fields_set:
            raise ValueError("aucun champ à modifier")
        return self

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


class JournalSystemeResponse(OutputModel):
    id: uuid.UUID
    horodatage: datetime
    niveau: NiveauJournal
    logger: str = Field(description="Composant émetteur, ex. unionflow.requests, unionflow.jobs, uvicorn.error")
    message: str = Field(description="Message, secrets masqués ([MASQUÉ])")
    request_id: str | None = Field(description="X-Request-ID de la requête (ou job-… pour une tâche)")
    utilisateur: str | None = Field(description="sub de l'appelant (lignes de requête)")
    organisation_id: str | None = Field(description="Organisation active de l'appelant (lignes de requête)")
    methode: str | None
    route: str | None = Field(description="Gabarit de route, ex. /api/membres/{id}")
    statut: int | None = Field(description="Statut HTTP de la réponse (lignes de requête)")
    duree_ms: float | None
    processus: int | None = Field(description="PID du processus (worker) émetteur")
    contexte: dict[str, Any] | None = Field(description="Autres champs structurés (job, outcome, counts...)")
    exception: str | None = Field(description="Trace de l'exception, secrets masqués")
