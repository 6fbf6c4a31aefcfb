"""The money operations on payouts, one function each, called by the API's routes and by the console's forms (the
same settings, the same key table under the route's template, the same answers; paiements/operations.py says
why)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.paiements.versements.schemas import ConfirmerVersementRequest, CreateVersementRequest
from unionflow.paiements.versements.service import VersementService

OPERATION_CREER = "POST /api/versements"
OPERATION_CONFIRMER = "POST /api/versements/{id}/confirmer"


async def creer(session: AsyncSession, auth: AuthContext, settings: Settings, idem: IdempotentRequest,
                data: CreateVersementRequest) -> Reponse:
    """A payout prepared: nothing leaves before a second person confirms it (201)."""
    return await idem.answer(auth, lambda: VersementService(session, auth, settings).creer(data), 201)


async def confirmer(session: AsyncSession, auth: AuthContext, settings: Settings, idem: IdempotentRequest,
                    versement_id: uuid.UUID, data: ConfirmerVersementRequest) -> Reponse:
    """A payout sent (Wave, under its stored key) or recorded as paid (manual)."""
    return await idem.answer(auth, lambda: VersementService(session, auth, settings).confirmer(versement_id, data))
