from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.integration import StatutLivraison
from unionflow.webhooks.emission import EvenementWebhook


class CreateAbonnementWebhookRequest(InputModel):
    organisation_id: uuid.UUID
    url: str = Field(min_length=8, max_length=2000, description="http(s) uniquement; adresses privées refusées")
    evenements: list[EvenementWebhook] = Field(min_length=1, max_length=len(EvenementWebhook))
    description: str | None = Field(None, max_length=500)


class UpdateAbonnementWebhookRequest(InputModel):
    url: str | None = Field(None, min_length=8, max_length=2000)
    evenements: list[EvenementWebhook] | None = Field(None, min_length=1, max_length=len(EvenementWebhook))
    description: str | None = Field(None, max_length=500)
    actif: bool | None = Field(None, description="true réactive un abonnement désactivé (compteur d'échecs remis "
                                                 "à zéro)")


class AbonnementWebhookResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    url: str
    evenements: list[str]
    description: str | None
    actif: bool
    echecs_consecutifs: int
    desactive_le: datetime | None
    motif_desactivation: str | None
    cree_par: str | None
    created_at: datetime
    updated_at: datetime


class AbonnementWebhookSecretResponse(AbonnementWebhookResponse):
    secret: str = Field(description="Clé de signature HMAC-SHA256, affichée seulement à la création et à la "
                                    "rotation")


class LivraisonWebhookResponse(OutputModel):
    id: uuid.UUID
    abonnement_id: uuid.UUID
    evenement: str
    evenement_id: uuid.UUID
    statut: StatutLivraison
    tentatives: int
    historique: list[dict[str, Any]]
    dernier_code_http: int | None
    derniere_erreur: str | None
    prochaine_tentative: datetime | None
    date_livraison: datetime | None
    rejeu_de: uuid.UUID | None
    charge: dict[str, Any]
    created_at: datetime


class EvenementWebhookResponse(OutputModel):
    code: str
    libelle: str
