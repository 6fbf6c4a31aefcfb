"""The money operations of treasuries, called by the API's routes and by the console's forms (the same key
table under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.tresoreries.ouverture_service import ANouveauxService
from unionflow.tresoreries.schemas import CreateANouveauxRequest, CreateVirementInterneRequest
from unionflow.tresoreries.service import TresorerieService

OPERATION_VIRER = "POST /api/tresoreries/virements-internes"
OPERATION_A_NOUVEAUX = "POST /api/tresoreries/a-nouveaux"


async def virer(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                data: CreateVirementInterneRequest) -> Reponse:
    """Funds moved from one treasury to another (201)."""
    return await idem.answer(auth, lambda: TresorerieService(session, auth).virer(data), 201)


async def saisir_a_nouveaux(session: AsyncSession, auth: AuthContext, idem: IdempotentRequest,
                            data: CreateANouveauxRequest) -> Reponse:
    """Opening balances asked for: a four-eyes request (202), booked only when a second person approves it."""
    return await idem.answer(auth, lambda: ANouveauxService(session, auth).saisir(data), 202)
