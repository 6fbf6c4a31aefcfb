"""The manual entry as one operation, called by the API's route and by the console's form (the same key table
under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.schemas import CreateEcritureComptableRequest
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.saisies.schemas import DemandeEcritureResponse
from unionflow.saisies.service import SaisieService

OPERATION_SAISIR = "POST /api/comptabilite/ecritures"


def code(result: BaseModel) -> int:
    """200: booked at once; 202: a request a second person decides."""
    return 202 if isinstance(result, DemandeEcritureResponse) else 200


async def saisir(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                 data: CreateEcritureComptableRequest) -> Reponse:
    return await idem.answer(auth, lambda: SaisieService(session, auth).saisir(data), code)
