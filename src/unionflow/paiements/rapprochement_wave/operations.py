"""The money operation on Wave statements, called by the API's route and by the console's form (the same key
table under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.paiements.rapprochement_wave import lignes_inconnues
from unionflow.paiements.rapprochement_wave.service import RapprochementWaveService
from unionflow.wave.rapprochement_schemas import ComptabiliserLigneWaveRequest

OPERATION_RAPPROCHER = "POST /api/wave/releves/{id}/rapprocher"
OPERATION_COMPTABILISER_LIGNE = "POST /api/wave/releves/{id}/lignes/{ligneId}/comptabiliser"


async def rapprocher(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                     releve_id: uuid.UUID) -> Reponse:
    """A statement reconciled and Wave's fees booked, once per Wave transaction."""
    return await idem.answer(auth, lambda: RapprochementWaveService(session, auth).rapprocher(releve_id))


async def comptabiliser_ligne(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest, releve_id: uuid.UUID,
                              ligne_id: uuid.UUID, data: ComptabiliserLigneWaveRequest) -> Reponse:
    """An unknown line booked to an account: a four-eyes request (202)."""
    return await idem.answer(auth, lambda: lignes_inconnues.comptabiliser(session, auth, releve_id, ligne_id, data),
                             202)
