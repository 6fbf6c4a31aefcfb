"""Creating a background task (by the area that turns a long request into one) and reading its status."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.models import Tache
from unionflow.taches.repository import TacheRepository
from unionflow.taches.schemas import StatutTache, TacheResponse, TypeTache


def accepted(tache: TacheResponse) -> JSONResponse:
    """How a request turned into a task answers: 202, ``Location`` of its status resource, the task as body."""
    return JSONResponse(status_code=202, content=tache.model_dump(mode="json", by_alias=True),
                        headers={"Location": f"/api/jobs/{tache.id}"})


class TacheService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = TacheRepository(session)

    async def creer(self, type_: TypeTache, parametres: dict[str, Any], organisation_id: uuid.UUID | None,
                    total: int | None = None) -> TacheResponse:
        tache = Tache(type=type_.value, statut=StatutTache.EN_ATTENTE.value, progression=0, traites=0,
                      total=total, parametres=parametres, cree_par=self.auth.sub, organisation_id=organisation_id)
        self.repo.add(tache)
        await self.session.flush()
        return TacheResponse.model_validate(tache)

    async def get(self, tache_id: uuid.UUID) -> TacheResponse:
        tache = await self.repo.visible(self.auth, tache_id)
        if tache is None:
            raise NotFound("Tâche introuvable")
        return TacheResponse.model_validate(tache)
