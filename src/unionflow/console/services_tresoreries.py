"""What the console's treasuries screen calls: the same services as the API, the same rules."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.console.services import corps
from unionflow.core.auth import AuthContext
from unionflow.core.idempotence import IdempotentRequest
from unionflow.tresoreries import operations
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
    body = corps(organisationId=str(organisation_id), sourceId=str(source_id), destinationId=str(destination_id),
                 montant=str(montant), dateOperation=jour.isoformat() if jour else None, libelle=libelle)
    data = CreateVirementInterneRequest.model_validate(body)
    idem = IdempotentRequest.for_form(session, operations.OPERATION_VIRER, key, body)
    return str((await operations.virer(session, auth, idem, data)).body["numero"])
