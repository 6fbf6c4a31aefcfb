"""The background side of a large export: rebuild the caller's plan (export/fond.py) and write the file under
``data_dir/exports``, reporting the rows written every second while it runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.export import fond
from unionflow.export.formats import ExportPlan, FormatExport, csv_body, xlsx_body
from unionflow.export.service import ExportService
from unionflow.taches.service import dossier_exports, nom_fichier

Avancer = Callable[[AsyncSession, int, int], Awaitable[None]]
INTERVALLE_PROGRESSION = 1.0


class EchecExport(Exception):
    pass


async def _plan(sessionmaker: async_sessionmaker[AsyncSession], parametres: dict[str, Any]) -> ExportPlan:
    name = parametres["export"]
    if name not in fond.EXPORTS:
        raise EchecExport(f"Export inconnu: {name}")
    async with sessionmaker() as session:
        service = ExportService(session, fond.appelant(parametres), date.fromisoformat(parametres["date"]),
                                auditer=False)
        plan = await getattr(service, fond.EXPORTS[name][1])(fond.filtres(parametres),
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
