"""Creating a background task (by the area that turns a long request into one) and reading its status."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.tableaux import XLSX_MEDIA_TYPE
from unionflow.models import Tache
from unionflow.models.planificateur import StatutTache, TypeTache
from unionflow.tasks.repository import TacheRepository
from unionflow.tasks.schemas import TacheResponse

# The media type of a task's result file by its extension (the export's format).
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "xlsx": XLSX_MEDIA_TYPE}


def dossier_exports(settings: Settings) -> Path:
    return settings.data_dir / "exports"


def nom_fichier(tache_id: uuid.UUID, extension: str) -> str:
    """Generated from the task id only: nothing the client sent reaches the file system."""
    return f"{tache_id}.{extension}"


def accepted(tache: TacheResponse) -> JSONResponse:
    """How a request turned into a task answers: 202, ``Location`` of its status resource, the task as body."""
    return JSONResponse(status_code=202, content=tache.model_dump(mode="json", by_alias=True),
                        headers={"Location": f"/api/jobs/{tache.id}"})


class TacheService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = TacheRepository(session, auth)

    async def creer(self, type_: TypeTache, parametres: dict[str, Any], organisation_id: uuid.UUID | None,
                    total: int | None = None) -> TacheResponse:
        tache = Tache(type=type_.value, statut=StatutTache.EN_ATTENTE.value, progression=0, traites=0,
                      total=total, parametres=parametres, cree_par=self.auth.personne, organisation_id=organisation_id)
        self.repo.add(tache)
        await self.session.flush()
        return TacheResponse.model_validate(tache)

    async def fichier(self, tache_id: uuid.UUID, settings: Settings) -> tuple[Path, str, str]:
        """The file a finished export task wrote: (path, download name, media type). Same visibility as the
        task; a task still running, failed or producing no file has none (404)."""
        tache = await self.repo.get(tache_id)
        if tache is None:
            raise NotFound("Tâche introuvable")
        resultat = tache.resultat or {}
        if tache.statut != StatutTache.TERMINEE.value or tache.type != TypeTache.EXPORT.value \
                or "fichier" not in resultat:
            raise NotFound("Aucun fichier pour cette tâche (pas encore terminée, ou sans fichier)")
        extension = str(resultat["format"])
        path = dossier_exports(settings) / nom_fichier(tache.id, extension)
        if not path.is_file():
            raise NotFound("Fichier de la tâche introuvable (supprimé du serveur)")
        return path, str(resultat["nomFichier"]), MEDIA_TYPES[extension]

    async def obtenir(self, tache_id: uuid.UUID) -> TacheResponse:
        tache = await self.repo.get(tache_id)
        if tache is None:
            raise NotFound("Tâche introuvable")
        return TacheResponse.model_validate(tache)
