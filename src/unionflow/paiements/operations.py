"""The money operations on payments, one function each, called by the API's routes and by the console's forms.

Both doors hand in the same things: the request's transaction, the caller's ``AuthContext``, the application's
settings (Wave is reached from either door) and the request as the key table knows it (``IdempotentRequest``,
built from the HTTP request or from the form). The answer is the one stored under the key, so a replay through
either door gets the first answer back. ``OPERATION_*`` is the route each function serves: the console names
the same operation in the key table.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.paiements.avoirs.api_service import AvoirApiService
from unionflow.paiements.avoirs.schemas import ImputerAvoirRequest
from unionflow.paiements.checkout_schemas import CreateWaveCheckoutRequest
from unionflow.paiements.checkout_service import WaveCheckoutService
from unionflow.paiements.declarations import DeclarationService
from unionflow.paiements.schemas import ConfirmationPaiementRequest, CreatePaiementRequest
from unionflow.paiements.service import PaiementService

OPERATION_ENREGISTRER = "POST /api/paiements"
OPERATION_CONFIRMER = "POST /api/paiements/{id}/confirmer"
OPERATION_CHECKOUT_WAVE = "POST /api/paiements/wave/checkout"
OPERATION_IMPUTER_AVOIR = "POST /api/avoirs/imputer"


async def enregistrer(session: AsyncSession, auth: AuthContext, settings: Settings, idem: IdempotentRequest,
                      data: CreatePaiementRequest) -> Reponse:
    """A payment received at the counter (201). The settings reach Wave: a target reserved by an open Wave
    session has that session expired there first."""
    return await idem.answer(auth, lambda: PaiementService(session, auth, settings).enregistrer(data), 201)


async def confirmer(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest, paiement_id: uuid.UUID,
                    data: ConfirmationPaiementRequest) -> Reponse:
    """A member's declaration confirmed by the treasury: the money is received (200)."""
    return await idem.answer(auth, lambda: DeclarationService(session, auth).confirmer(paiement_id, data))


async def ouvrir_checkout_wave(session: AsyncSession, auth: AuthContext, settings: Settings,
                               idem: IdempotentRequest, data: CreateWaveCheckoutRequest) -> Reponse:
    """A Wave Checkout session for what remains owed on the targets (201)."""
    return await idem.answer(auth, lambda: WaveCheckoutService(session, auth, settings).payer(data), 201)


async def imputer_avoir(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                        data: ImputerAvoirRequest) -> Reponse:
    """A member's credit applied to his oldest dues (200)."""
    return await idem.answer(auth, lambda: AvoirApiService(session, auth).imputer(data))
