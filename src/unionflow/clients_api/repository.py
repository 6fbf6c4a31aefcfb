from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.pagination import PageParams, paginate
from unionflow.models import ClientApi


class ClientApiRepository:
    """API clients are platform records: only SUPER_ADMIN/ADMIN reach this area (RS-CLIENT-API), who see all."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, id: uuid.UUID) -> ClientApi | None:
        return await self.session.get(ClientApi, id)

    async def by_client_id(self, client_id: str) -> ClientApi | None:
        stmt = select(ClientApi).where(ClientApi.client_id == client_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, actif: bool | None, params: PageParams) -> tuple[list[ClientApi], int, bool]:
        stmt = select(ClientApi)
        if actif is not None:
            stmt = stmt.where(ClientApi.actif == actif)
        return await paginate(self.session, stmt.order_by(ClientApi.created_at.desc(), ClientApi.id), params)

    def add(self, client: ClientApi) -> None:
        self.session.add(client)
