"""Wave checkout sessions: the request that opens one for a member's dues or adhesion, its answer, and the answer
to Wave's webhook (checkout_service.py)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.paiements.encaissement.schemas import CibleInput


class CreateWaveCheckoutRequest(InputModel):
    membre_id: uuid.UUID | None = Field(default=None, description="Défaut: le membre connecté")
    organisation_id: uuid.UUID
    cibles: list[CibleInput] = Field(min_length=1, max_length=50)


class WaveCheckoutResponse(OutputModel):
    paiement_id: uuid.UUID
    numero_recu: str
    montant: Montant
    devise: str
    wave_launch_url: str
    checkout_id: str
    expires_at: datetime | None


class WaveWebhookResponse(OutputModel):
    resultat: str = Field(description="APPLIQUE, DEJA_TRAITE, IGNORE, ECHEC_ENREGISTRE ou ANOMALIE")
    paiement_id: uuid.UUID | None = None
