from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import Montant, OutputModel, Taux
from unionflow.finance.approbations.schemas import StatutApprobation, TypeObjetApprobation
from unionflow.models.audit import Severite


class Volume(OutputModel):
    nombre: int
    montant: Montant


class VolumeParType(OutputModel):
    type_objet: TypeObjetApprobation
    statut: StatutApprobation
    nombre: int
    montant: Montant


class StatistiquesApprobateur(OutputModel):
    approbateur: str
    approbations: int
    rejets: int
    montant_approuve: Montant = Field(description="Montant des demandes sur lesquelles il a dit oui (tout niveau)")
    delai_moyen_heures: Taux | None = Field(description="De la demande à sa décision, en heures")


class StatistiquesWorkflowResponse(ResultatCalcule):
    organisation_id: uuid.UUID | None
    date_debut: date | None
    date_fin: date | None
    en_attente: Volume
    approuvees: Volume
    rejetees: Volume
    annulees: Volume
    en_attente_depuis_plus_de: int = Field(description="Demandes EN_ATTENTE plus anciennes que `delaiAlerteJours`")
    delai_moyen_heures: Taux | None = Field(
        description="Moyenne, sur les demandes APPROUVEE ou REJETEE, du délai demande → décision finale, en heures")
    taux_approbation: Taux | None = Field(description="APPROUVEE / (APPROUVEE + REJETEE) × 100")
    par_type: list[VolumeParType]
    par_approbateur: list[StatistiquesApprobateur]


class EvenementAudit(OutputModel):
    id: uuid.UUID
    date_heure: datetime
    utilisateur: str | None
    role_actif: str | None
    organisation_id: uuid.UUID | None
    type_action: str
    entite_type: str | None
    entite_id: str | None
    description: str | None
    details: dict[str, Any] | None
    severite: Severite
