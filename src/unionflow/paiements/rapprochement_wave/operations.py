"""The money operation on Wave statements, called by the API's route and by the console's form (the same key
table under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.paiements.rapprochement_wave.service import RapprochementWaveService

OPERATION_RAPPROCHER = "POST /api/wave/releves/{id}/rapprocher"


async def rapprocher(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                     releve_id: uuid.UUID) -> Reponse:
    """A statement reconciled and Wave's fees booked, once per Wave transaction."""
    return await idem.answer(auth, lambda: RapprochementWaveService(session, auth).rapprocher(releve_id))
