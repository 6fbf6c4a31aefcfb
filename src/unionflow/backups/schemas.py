from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from unionflow.core.schemas import InputModel, OutputModel, UpdateModel
from unionflow.models.monitoring import Frequence, StatutSauvegarde, TypeSauvegarde

CONFIRMATION = "RESTAURER"


class SauvegardeResponse(OutputModel):
    id: uuid.UUID
    nom: str
    description: str | None
    type: TypeSauvegarde
    statut: StatutSauvegarde
    moteur: str = Field(description="sqlite ou postgresql")
    taille_octets: int | None
    sha256: str | None = Field(description="Empreinte du fichier, vérifiée avant toute restauration")
    revision_schema: str | None = Field(description="Révision(s) de migration de la base sauvegardée")
    message_erreur: str | None
    cree_par: str
    date_creation: datetime
    date_fin: datetime | None
    date_suppression: datetime | None
    supprime_par: str | None
    date_derniere_restauration: datetime | None


class CreateSauvegardeRequest(InputModel):
    nom: str | None = Field(None, min_length=1, max_length=150)
    description: str | None = Field(None, max_length=2000)


class RestaurerSauvegardeRequest(InputModel):
    backup_id: uuid.UUID
    confirmation: Literal["RESTAURER"] = Field(description=f'Doit valoir exactement "{CONFIRMATION}"')


class RestaurationResponse(OutputModel):
    statut: StatutSauvegarde = Field(description="TERMINEE, ou ECHOUEE (la base est alors inchangée)")
    message: str
    sauvegarde: SauvegardeResponse
    point_restauration: SauvegardeResponse = Field(description="Sauvegarde de l'état précédant la restauration")
    date_restauration: datetime


class SauvegardeConfigResponse(OutputModel):
    actif: bool
    frequence: Frequence
    heure: str = Field(description="HH:MM, UTC")
    jour_semaine: int = Field(description="Jour ISO (1 = lundi … 7 = dimanche), pour HEBDOMADAIRE")
    retention_jours: int
    prochaine_execution: datetime | None
    derniere_sauvegarde_automatique: datetime | None
    date_modification: datetime | None
    modifie_par: str | None


class UpdateSauvegardeConfigRequest(UpdateModel):
    """Partial update: only the fields sent change; null is refused (and not offered by the schema), an empty
    body too (``minProperties``)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    actif: bool | None = None
    frequence: Frequence | None = None
    heure: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    jour_semaine: int | None = Field(None, ge=1, le=7)
    retention_jours: int | None = Field(None, ge=1, le=3650)

    @model_validator(mode="after")
    def _not_empty(self) -> UpdateSauvegardeConfigRequest:
        if not self.model_fields_set:
            raise ValueError("aucun champ à modifier")
        return self

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True, mode="json")
