"""The money operation between treasuries, called by the API's route and by the console's form (the same key
table under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.tresoreries.schemas import CreateVirementInterneRequest
from unionflow.tresoreries.service import TresorerieService

OPERATION_VIRER = "POST /api/tresoreries/virements-internes"


async def virer(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                data: CreateVirementInterneRequest) -> Reponse:
    """Funds moved from one treasury to another (201)."""
    return await idem.answer(auth, lambda: TresorerieService(session, auth).virer(data), 201)
