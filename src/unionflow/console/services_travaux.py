"""Long work started from the console: dues generation and exports, through the same services as the API. Above
their thresholds (``UNIONFLOW_TACHE_SEUIL_COTISATIONS``, ``UNIONFLOW_TACHE_SEUIL_EXPORT_LIGNES``) the services hand
the work to a background task, whose console page (``/console/taches/{id}``) shows the progress and the result."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from unionflow.core.auth import AuthContext
from unionflow.core.db import sqlite_write_intent
from unionflow.cotisations.organisation_service import CotisationOrganisationService
from unionflow.cotisations.schemas import GenerationResponse, GenererCotisationsRequest
from unionflow.export.formats import FormatExport
from unionflow.export.repository import CotisationExportFilters, MembreExportFilters, PaiementExportFilters
from unionflow.export.router import file_response
from unionflow.export.service import ExportService
from unionflow.tasks.schemas import TacheResponse


async def generer(session: AsyncSession, auth: AuthContext, request: Request,
                  data: GenererCotisationsRequest) -> GenerationResponse | TacheResponse:
    """POST /api/cotisations/generer."""
    return await CotisationOrganisationService(session, auth).generer(data, request.app.state.settings
                                                                      .tache_seuil_cotisations)


def ecrit_audit() -> None:
    """An export writes its audit entry: on SQLite its transaction begins as a writer (as the API's export
    routes declare, export/router.py). Called before the page's first query."""
    sqlite_write_intent.set(True)


async def exporter(session: AsyncSession, auth: AuthContext, request: Request, nom: str, organisation_id: uuid.UUID,
                   fmt: FormatExport) -> Response | TacheResponse:
    """GET /api/export/{membres|cotisations|paiements}?organisationId=: the file, or the task writing it."""
    service = ExportService(session, auth, seuil_tache=request.app.state.settings.tache_seuil_export_lignes)
    if nom == "membres":
        result = await service.membres(MembreExportFilters(organisation_id=organisation_id), fmt)
    elif nom == "paiements":
        result = await service.paiements(PaiementExportFilters(organisation_id=organisation_id), fmt)
    else:
        result = await service.cotisations(CotisationExportFilters(organisation_id=organisation_id), fmt)
    return result if isinstance(result, TacheResponse) else file_response(result, request.app.state.sessionmaker)
