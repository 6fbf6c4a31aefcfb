"""The background task of the export area: a large export written to a file (export/tache.py)."""

from __future__ import annotations

from typing import Any

from unionflow.core.jobs import Avancer, Contexte, EchecTache
from unionflow.export.tache import EchecExport, executer_export
from unionflow.models import Tache


async def export_tache(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], str]:
    try:
        return await executer_export(ctx.sessionmaker, ctx.settings, tache.id, tache.parametres, avancer)
    except EchecExport as exc:
        raise EchecTache(str(exc)) from exc
