"""The quote-part as one operation, called by the API's route and by the console's form (the same settings, the
same key table under the route's template, the same answer; paiements/operations.py says why)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest, Reponse
from unionflow.federation.schemas import CreateQuotePartRequest
from unionflow.federation.service import FederationService

OPERATION_VERSER_QUOTE_PART = "POST /api/federations/quotes-parts"


async def verser_quote_part(session: AsyncSession, auth: AuthContext, settings: Settings, idem: IdempotentRequest,
                            data: CreateQuotePartRequest) -> Reponse:
    """A quote-part prepared: a payout nothing leaves by before a second person confirms it (201)."""
    return await idem.answer(auth, lambda: FederationService(session, auth, settings).verser_quote_part(data), 201)
