"""The background side of a large export: rebuild the caller's plan and write the file under ``data_dir/exports``,
reporting the rows written every second while it runs.

Exports over ``tache_seuil_export_lignes`` rows, written by a background task (``export_tache`` below, in
registres.py).

The task must export exactly what the caller could see when asking, so its parameters hold the export's name,
format, filters and day, and a snapshot of the caller's resolved visibility (subject, roles, memberships,
active organisation and role, as ``core/auth.py`` resolved them for that request). The task rebuilds the
``AuthContext`` from that snapshot and the scoped statement through the same ``ExportService`` method, without
auditing it again: the request wrote the audit entry (docs/decisions.md, "Exports en tâche de fond")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Sequence
from datetime import date
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.jobs import Avancer, Contexte, EchecTache
from unionflow.export.formats import ExportPlan, FormatExport, csv_body, xlsx_body
from unionflow.export.service import EXPORTS, ExportService
from unionflow.models import Tache
from unionflow.tasks.service import dossier_exports, nom_fichier

INTERVALLE_PROGRESSION = 1.0


def appelant(parametres: dict[str, Any]) -> AuthContext:
    a = parametres["appelant"]
    return AuthContext(
        sub=a["sub"], email=a["email"], username=a["username"], realm_roles=frozenset(a["realmRoles"]),
        roles=frozenset(a["roles"]), membre_id=uuid.UUID(a["membreId"]) if a["membreId"] else None,
        memberships={uuid.UUID(org): frozenset(roles) for org, roles in a["memberships"].items()},
        active_organisation_id=uuid.UUID(a["activeOrganisationId"]) if a["activeOrganisationId"] else None,
        active_role=a["activeRole"], issuer=a.get("issuer"))  # absent from tasks queued before 0017


def filtres(parametres: dict[str, Any]) -> Any:
    cls, _method = EXPORTS[parametres["export"]]
    return TypeAdapter(cls).validate_python(parametres["filtres"])


class EchecExport(Exception):
    pass


async def _plan(sessionmaker: async_sessionmaker[AsyncSession], parametres: dict[str, Any]) -> ExportPlan:
    name = parametres["export"]
    if name not in EXPORTS:
        raise EchecExport(f"Export inconnu: {name}")
    async with sessionmaker() as session:
        service = ExportService(session, appelant(parametres), date.fromisoformat(parametres["date"]),
                                auditer=False)
        plan = await getattr(service, EXPORTS[name][1])(filtres(parametres),
                                                              FormatExport(parametres["format"]))
        await session.commit()
    if not isinstance(plan, ExportPlan):
        raise EchecExport("Plan d'export inattendu")
    return plan


async def executer_export(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, tache_id: uuid.UUID,
                          parametres: dict[str, Any], avancer: Avancer) -> tuple[dict[str, Any], str]:
    plan = await _plan(sessionmaker, parametres)
    ecrites = 0
    transform = plan.transform

    def compter(row: Sequence[Any]) -> Sequence[Any]:
        nonlocal ecrites
        ecrites += 1
        return transform(row)

    plan.transform = compter

    async def progression(traites: int) -> None:
        async with sessionmaker() as session:
            await avancer(session, traites, plan.rows)
            await session.commit()

    async def suivre() -> None:
        while True:
            await asyncio.sleep(INTERVALLE_PROGRESSION)
            await progression(ecrites)

    dossier = dossier_exports(settings)
    dossier.mkdir(parents=True, exist_ok=True)
    nom = nom_fichier(tache_id, plan.fmt.value)
    partiel = dossier / f"{nom}.part"
    body = csv_body(plan, sessionmaker) if plan.fmt is FormatExport.CSV else xlsx_body(plan, sessionmaker)
    suivi = asyncio.create_task(suivre())
    try:
        with partiel.open("wb") as handle:
            async for chunk in body:
                handle.write(chunk)
    except BaseException:
        partiel.unlink(missing_ok=True)
        raise
    finally:
        suivi.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await suivi
    # Renamed once complete: a half-written file is never served.
    os.replace(partiel, dossier / nom)
    await progression(ecrites)
    resultat = {"fichier": nom, "nomFichier": plan.filename, "format": plan.fmt.value, "lignes": ecrites,
                "tailleOctets": (dossier / nom).stat().st_size}
    return resultat, f"/api/jobs/{tache_id}/fichier"


async def export_tache(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], str]:
    """The executor of the EXPORT task type (registres.EXECUTEURS)."""
    try:
        return await executer_export(ctx.sessionmaker, ctx.settings, tache.id, tache.parametres, avancer)
    except EchecExport as exc:
        raise EchecTache(str(exc)) from exc
