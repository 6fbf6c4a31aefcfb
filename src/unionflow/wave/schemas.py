from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from unionflow.core.schemas import InputModel, Montant, OutputModel, UpdateModel
from unionflow.core.telephone import verifier_national
from unionflow.models.wave import StatutCompteWave

PHONE_PATTERN = r"^\+[1-9]\d{6,14}$"


class CreateCompteWaveRequest(InputModel):
    organisation_id: uuid.UUID
    libelle: str = Field(min_length=2, max_length=200)
    numero_telephone: str = Field(pattern=PHONE_PATTERN, description=(
        "Numéro du compte marchand, E.164 (numéro national vérifié: sinon 400 regle-metier avec la raison)"))
    cle_api: str | None = Field(default=None, min_length=8, max_length=500,
                                description="Clé API Wave Business (jamais renvoyée)")
    secret_webhook: str | None = Field(default=None, min_length=8, max_length=500,
                                       description="Secret de signature des webhooks (jamais renvoyé)")

    _telephone = field_validator("numero_telephone")(verifier_national)


class UpdateCompteWaveRequest(UpdateModel):
    nullable_fields = frozenset({"cle_api", "secret_webhook"})
    libelle: str | None = Field(default=None, min_length=2, max_length=200)
    numero_telephone: str | None = Field(default=None, pattern=PHONE_PATTERN)
    cle_api: str | None = Field(default=None, min_length=8, max_length=500)
    secret_webhook: str | None = Field(default=None, min_length=8, max_length=500)
    statut: StatutCompteWave | None = None

    _telephone = field_validator("numero_telephone")(verifier_national)


class CompteWaveResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    libelle: str
    numero_telephone: str
    statut: StatutCompteWave
    cle_api_indice: str | None = Field(description="4 derniers caractères de la clé, masqués")
    secret_webhook_indice: str | None
    created_at: datetime
    updated_at: datetime


class TransactionWaveResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID | None
    type_transaction: str
    reference_wave: str | None
    montant: Montant | None
    devise: str
    statut: str
    paiement_id: uuid.UUID | None
    versement_id: uuid.UUID | None
    details: dict[str, Any] | None
    created_at: datetime


class OrigineMontant(StrEnum):
    """Where the ``montant`` of a Wave balance comes from (computed for the response)."""

    WAVE = "WAVE"
    COMPTABLE = "COMPTABLE"


class SoldeWaveResponse(OutputModel):
    organisation_id: uuid.UUID
    compte_wave_id: uuid.UUID | None = Field(description="None: compte de l'union configuré sur le serveur")
    montant: Montant = Field(description="Le solde Wave quand l'appelant peut le voir, sinon le solde comptable "
                                         "de l'organisation: voir `origineMontant`")
    devise: str
    # Extension: the organisation's own figures beside Wave's.
    origine_montant: OrigineMontant = Field(
        description="WAVE (lu chez Wave) ou COMPTABLE (compte Wave de l'organisation)")
    compte_partage: bool = Field(description="L'organisation utilise le compte Wave partagé de l'union")
    solde_comptable: Montant = Field(description=(
        "Solde du compte Wave de l'organisation (sa trésorerie Wave, sinon 5521, ou 5215 s'il est ouvert)"))
    solde_wave: Montant | None = Field(description="Solde lu chez Wave; null sur le compte partagé pour les rôles "
                                                   "d'organisation (c'est l'argent de toutes les organisations)")
    ecart: Montant | None = Field(description="soldeComptable − soldeWave, compte propre seulement")
    message: str | None = None
