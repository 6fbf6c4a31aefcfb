"""The money operations on dues, one function each, called by the API's routes and by the console's forms (the
same settings, the same key table under the route's template, the same answers; paiements/operations.py says
why)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.cotisations.annulation import AnnulationCotisationService
from unionflow.cotisations.schemas import AnnulerCotisationsRequest, PaiementCotisationRequest
from unionflow.cotisations.service import CotisationService

OPERATION_PAYER = "PUT /api/cotisations/{id}/payer"
OPERATION_ANNULER = "POST /api/cotisations/annulation"


async def payer(session: AsyncSession, auth: AuthContext, settings: Settings, idem: IdempotentRequest,
                cotisation_id: uuid.UUID, data: PaiementCotisationRequest) -> Reponse:
    """Dues paid by the treasury (money received) or declared by the member himself (a pending declaration, or a
    Wave session reached through the settings)."""
    return await idem.answer(auth, lambda: CotisationService(session, auth).payer(cotisation_id, data, settings))


async def annuler(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                  data: AnnulerCotisationsRequest) -> Reponse:
    """Dues cancelled, all or nothing for the money received."""
    return await idem.answer(auth, lambda: AnnulationCotisationService(session, auth).annuler(data))
