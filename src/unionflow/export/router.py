from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from fastapi import Depends, Query, Request
from fastapi.responses import Response, StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep, sqlite_write_intent
from unionflow.core.openapi import problems
from unionflow.core.replica import SessionsExport
from unionflow.core.roles import (
    RS_AUDIT_LECTURE,
    RS_EXPORT_ADHESIONS,
    RS_EXPORT_MEMBRES,
    RS_EXPORT_TRESORERIE,
)
from unionflow.core.routing import area_router
from unionflow.export.formats import XLSX_MEDIA_TYPE, ExportPlan, FormatExport, csv_body, xlsx_body
from unionflow.export.repository import (
    AdhesionExportFilters,
    AuditExportFilters,
    CotisationExportFilters,
    EcritureExportFilters,
    MembreExportFilters,
    PaiementExportFilters,
    Periode,
)
from unionflow.export.service import ExportService
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.audit import Severite
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.membre import StatutMembre
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import accepted

router = area_router("/api/export", "Export")
# Cross-field rule JSON Schema cannot state: written here and answered 400 `regle-metier`.
PERIODE = " Règle métier (400 `regle-metier`): `dateDebut` ne peut pas suivre `dateFin`."

COMMON = (" Fichier `format=csv` (défaut: UTF-8 avec BOM, séparateur `;`, virgule décimale, guillemets RFC 4180, "
          "cellules commençant par = + - @ préfixées d'une apostrophe) ou `format=xlsx` (cellules typées, "
          "1 048 575 lignes au plus, sinon 400). Lignes lues par curseur serveur et envoyées au fil de l'eau; "
          "`Content-Disposition: attachment` avec un nom daté; `X-Total-Count` = lignes comptées à l'audit. "
          "Chaque export est inscrit au journal d'audit (qui, quoi, filtres, nombre de lignes). Au-delà de "
          "`UNIONFLOW_TACHE_SEUIL_EXPORT_LIGNES` lignes (50 000): 202, `Location: /api/jobs/{id}`, la tâche en "
          "corps; elle écrit le fichier avec la visibilité de l'appelant au moment de la demande.")
FILE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "Fichier à télécharger",
          "content": {"text/csv": {"schema": {"type": "string"}},
                      XLSX_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}},
    202: {"model": TacheResponse,
          "description": "Plus de `UNIONFLOW_TACHE_SEUIL_EXPORT_LIGNES` lignes: tâche de fond (voir `Location`); "
                         "le fichier se télécharge ensuite à son `lienResultat` (`/api/jobs/{id}/fichier`)"},
    **problems(404),
}


async def writes_audit() -> None:
    """A download writes its audit entry, so on SQLite its transaction must begin as a writer (BEGIN IMMEDIATE,
    core/db.py): a deferred one that has read (authentication, count) fails at once if another connection
    committed meanwhile. Declared between the session and the role check, i.e. before the first query."""
    sqlite_write_intent.set(True)


WRITES_AUDIT = Depends(writes_audit)


def _service(session: AsyncSession, auth: AuthContext, request: Request) -> ExportService:
    return ExportService(session, auth, seuil_tache=request.app.state.settings.tache_seuil_export_lignes)


def file_response(result: ExportPlan | TacheResponse, sessionmaker: async_sessionmaker[AsyncSession]) -> Response:
    """The file, streamed from ``sessionmaker`` (the replica's when it may serve, core/replica.py); or, above
    ``tache_seuil_export_lignes`` rows, 202 and the task writing it."""
    if isinstance(result, TacheResponse):
        return accepted(result)
    plan = result
    body = csv_body(plan, sessionmaker) if plan.fmt is FormatExport.CSV else xlsx_body(plan, sessionmaker)
    return StreamingResponse(body, media_type=plan.media_type, headers={
        "Content-Disposition": f'attachment; filename="{plan.filename}"',
        "X-Total-Count": str(plan.rows),
        "Cache-Control": "no-store",
    })


@router.get("/membres", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter le registre des membres",
            description="Une ligne par appartenance à une organisation dont l'appelant tient le registre "
                        "(ADMIN: toutes, plus les membres sans appartenance). Données personnelles: audit WARNING."
                        + COMMON)
async def export_membres(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_EXPORT_MEMBRES),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    statut: StatutMembre | None = None,
) -> Response:
    plan = await _service(session, auth, request).membres(
        MembreExportFilters(organisation_id=organisation_id, statut=statut), fmt)
    return file_response(plan, lecture)


@router.get("/cotisations", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter les cotisations",
            description="Cotisations visibles (trésorier: celles de son organisation), filtres organisationId, "
                        "annee, mois, statut (EN_RETARD dérivé de l'échéance comme dans la liste). Colonne "
                        "« Reste à payer » (0 pour une cotisation annulée)." + COMMON)
async def export_cotisations(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_EXPORT_TRESORERIE),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    annee: int | None = Query(None, ge=2000, le=2100),
    mois: int | None = Query(None, ge=1, le=12),
    statut: StatutCotisation | None = None,
) -> Response:
    plan = await _service(session, auth, request).cotisations(
        CotisationExportFilters(organisation_id=organisation_id, annee=annee, mois=mois, statut=statut), fmt)
    return file_response(plan, lecture)


@router.get("/paiements", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter les paiements",
            description="Paiements visibles, période `dateDebut`..`dateFin` incluses (date du paiement, à défaut "
                        "de création, jour UTC), `methode`, `statut`." + PERIODE + COMMON)
async def export_paiements(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_EXPORT_TRESORERIE),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    date_debut: date | None = Query(None, alias="dateDebut"),
    date_fin: date | None = Query(None, alias="dateFin"),
    methode: MethodePaiement | None = None,
    statut: StatutPaiement | None = None,
) -> Response:
    plan = await _service(session, auth, request).paiements(PaiementExportFilters(
        organisation_id=organisation_id, methode=methode, statut=statut, periode=Periode(date_debut, date_fin)), fmt)
    return file_response(plan, lecture)


@router.get("/adhesions", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter les adhésions",
            description="Demandes d'adhésion visibles, période sur la date de demande, `statut`." + PERIODE + COMMON)
async def export_adhesions(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_EXPORT_ADHESIONS),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    date_debut: date | None = Query(None, alias="dateDebut"),
    date_fin: date | None = Query(None, alias="dateFin"),
    statut: StatutAdhesion | None = None,
) -> Response:
    plan = await _service(session, auth, request).adhesions(AdhesionExportFilters(
        organisation_id=organisation_id, statut=statut, periode=Periode(date_debut, date_fin)), fmt)
    return file_response(plan, lecture)


@router.get("/ecritures", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter les lignes d'écritures (grand livre)",
            description="Une ligne par ligne d'écriture (débit ou crédit) avec pièce, journal et compte, d'un "
                        "journal (`journalId`, invisible: 404) et/ou d'une période (date d'écriture). Écritures "
                        "réservées au bureau de l'organisation." + PERIODE + COMMON)
async def export_ecritures(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_EXPORT_TRESORERIE),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
    journal_id: uuid.UUID | None = Query(None, alias="journalId"),
    date_debut: date | None = Query(None, alias="dateDebut"),
    date_fin: date | None = Query(None, alias="dateFin"),
) -> Response:
    plan = await _service(session, auth, request).ecritures(EcritureExportFilters(
        organisation_id=organisation_id, journal_id=journal_id, periode=Periode(date_debut, date_fin)), fmt)
    return file_response(plan, lecture)


@router.get("/audit", response_class=StreamingResponse, responses=FILE_RESPONSES,
            summary="Exporter le journal d'audit d'une période",
            description="Entrées visibles comme dans /api/audit (ADMIN_ORGANISATION, COMMISSAIRE_AUX_COMPTES: ses "
                        "organisations; TRESORIER: l'argent de son organisation), période "
                        "en jours UTC inclus, `module`, `severite`. Utilisateurs et adresses IP: audit WARNING."
                        + PERIODE + COMMON)
async def export_audit(
    request: Request, session: SessionDep, lecture: SessionsExport, _audit: None = WRITES_AUDIT,
    auth: AuthContext = authorize(RS_AUDIT_LECTURE),
    fmt: FormatExport = Query(FormatExport.CSV, alias="format"),
    date_debut: date | None = Query(None, alias="dateDebut"),
    date_fin: date | None = Query(None, alias="dateFin"),
    module: str | None = Query(None, max_length=50),
    severite: Severite | None = None,
) -> Response:
    plan = await _service(session, auth, request).audit(AuditExportFilters(
        periode=Periode(date_debut, date_fin), module=module.upper() if module else None, severite=severite), fmt)
    return file_response(plan, lecture)
