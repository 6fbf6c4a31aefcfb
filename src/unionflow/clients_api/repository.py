from __future__ import annotations

from sqlalchemy import select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import SystemRepository
from unionflow.models import ClientApi


class ClientApiRepository(SystemRepository[ClientApi]):
    """API clients are platform records: only SUPER_ADMIN/ADMIN reach this area (RS-CLIENT-API), who see all;
    the token endpoint reads them on the system's behalf."""

    model = ClientApi

    async def by_client_id(self, client_id: str) -> ClientApi | None:
        stmt = select(ClientApi).where(ClientApi.client_id == client_id)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, actif: bool | None, params: PageParams) -> tuple[list[ClientApi], int, bool]:
        stmt = select(ClientApi)
        if actif is not None:
            stmt = stmt.where(ClientApi.actif == actif)
        return await self.paginate(stmt.order_by(ClientApi.created_at.desc(), ClientApi.id), params)
