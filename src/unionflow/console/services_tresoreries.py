"""What the console's treasuries screen calls (issue 20): the same services as the API, the same rules."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.console.services import _idempotent
from unionflow.core.auth import AuthContext
from unionflow.tresoreries.schemas import CreateVirementInterneRequest, TresorerieResponse
from unionflow.tresoreries.service import TresorerieService


async def tresoreries(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID
                      ) -> list[TresorerieResponse]:
    """GET /api/tresoreries?organisationId=<active>."""
    return await TresorerieService(session, auth).lister(organisation_id)


async def virer(session: AsyncSession, auth: AuthContext, key: str, organisation_id: uuid.UUID,
                source_id: uuid.UUID, destination_id: uuid.UUID, montant: Decimal, jour: date | None,
                libelle: str) -> str:
    """POST /api/tresoreries/virements-internes under the form's Idempotency-Key; returns the transfer's number."""
    data = CreateVirementInterneRequest(organisation_id=organisation_id, source_id=source_id,
                                        destination_id=destination_id, montant=montant, date_operation=jour,
                                        libelle=libelle)
    service = TresorerieService(session, auth)
    body = await _idempotent(session, auth, "console POST /api/tresoreries/virements-internes", key, data,
                             lambda: service.virer(data))
    return str(body["numero"])
