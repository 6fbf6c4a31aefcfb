"""The audit trail in the console, for the external auditor and the bureau: who did what, when, before and after;
filters by period, person, module and action; the page as CSV.

The API's search (``AuditService.rechercher``, route set RS-AUDIT-LECTURE) with its scope: the auditor reads his
organisation's entries, the treasurer those of its money, an organisation's administrator those of the
organisations he administers.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from unionflow.audit.service import AuditService
from unionflow.console.pages import Ctx, page
from unionflow.core.pagination import Page, PageParams
from unionflow.core.roles import RS_AUDIT_LECTURE

TAILLE = 50
# The CSV of one search: at most this many entries (narrow the period for more).
MAX_CSV = 5000
FILTRES = ("dateDebut", "dateFin", "utilisateur", "module", "typeAction")


def _filtres(ctx: Ctx) -> dict[str, str]:
    return {nom: ctx.request.query_params.get(nom, "").strip() for nom in FILTRES}


async def _recherche(ctx: Ctx, params: PageParams, filtres: dict[str, str]) -> Page[Any]:
    return await AuditService(ctx.db, ctx.auth).rechercher(
        params, date_debut=filtres["dateDebut"] or None, date_fin=filtres["dateFin"] or None, ip_address=None,
        module=filtres["module"] or None, severite=None, type_action=filtres["typeAction"] or None,
        utilisateur=filtres["utilisateur"] or None)


def _avant_apres(details: dict[str, Any] | None) -> tuple[str, str]:
    details = details or {}
    return (json.dumps(details.get("avant"), ensure_ascii=False, default=str) if "avant" in details else "",
            json.dumps(details.get("apres"), ensure_ascii=False, default=str) if "apres" in details else "")


@page("/journal-audit", RS_AUDIT_LECTURE)
async def journal(ctx: Ctx) -> Response:
    filtres = _filtres(ctx)
    raw = ctx.request.query_params.get("page", "0")
    numero = int(raw) if raw.isdigit() else 0
    found = await _recherche(ctx, PageParams(numero, TAILLE), filtres)
    lignes = [(e, *_avant_apres(e.details)) for e in found.content]
    requete = urlencode({k: v for k, v in filtres.items() if v})
    return ctx.render("journal_audit.html", lignes=lignes, page_=found, filtres=filtres, requete=requete)


@page("/journal-audit.csv", RS_AUDIT_LECTURE)
async def journal_csv(ctx: Ctx) -> Response:
    found = await _recherche(ctx, PageParams(0, MAX_CSV), _filtres(ctx))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["Date et heure (UTC)", "Utilisateur", "Rôle", "Organisation", "Module", "Action", "Entité",
                     "Identifiant", "Description", "Avant", "Après", "Sévérité", "Requête"])
    for e in found.content:
        avant, apres = _avant_apres(e.details)
        writer.writerow([e.date_heure.isoformat(), e.utilisateur or "", e.role_actif or "",
                         str(e.organisation_id or ""), e.module, e.type_action, e.entite_type or "", e.entite_id or "",
                         e.description or "", avant, apres, e.severite, e.request_id or ""])
    # A BOM so that a spreadsheet opened on a Windows PC reads the accents.
    return Response("\ufeff" + out.getvalue(), media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": 'attachment; filename="journal-audit.csv"', "Cache-Control": "no-store"})
