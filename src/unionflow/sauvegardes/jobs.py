"""``unionflow jobs sauvegarder`` and the scheduler's ``sauvegarder`` job: take the automatic backup when the
schedule says it is due (or with ``--force``), then apply the retention. Unlike a request, the job commits
between steps so that a running backup is visible as EN_COURS and a crash leaves a trace."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker, sqlite_write_intent
from unionflow.core.errors import UnionFlowError
from unionflow.models import Sauvegarde
from unionflow.sauvegardes.service import SauvegardeService


@dataclass
class BilanSauvegarde:
    sauvegarde: Sauvegarde | None = None
    supprimees: list[Sauvegarde] = field(default_factory=list)
    erreur: str | None = None


async def executer_sauvegarde(engine: AsyncEngine, settings: Settings, *, force: bool = False,
                              now: datetime | None = None) -> BilanSauvegarde:
    """The backup when due, then the retention; the caller sets the SQLite write intent."""
    async with create_sessionmaker(engine)() as session:
        service = SauvegardeService(session, None, settings, engine)
        bilan = BilanSauvegarde()
        if force or await service.due(now):
            try:
                backup = await service.demarrer("AUTOMATIQUE")
            except UnionFlowError as exc:
                return BilanSauvegarde(erreur=exc.detail)
            await session.commit()
            await service.terminer(backup)
            await session.commit()
            bilan.sauvegarde = backup
        bilan.supprimees = await service.purger(now)
        await session.commit()
        return bilan


async def sauvegarder(settings: Settings, *, force: bool = False, now: datetime | None = None,
                      out: Callable[[str], None] = print) -> int:
    token = sqlite_write_intent.set(True)
    engine = create_engine(settings)
    try:
        bilan = await executer_sauvegarde(engine, settings, force=force, now=now)
        if bilan.erreur:
            print(f"error: {bilan.erreur}", file=sys.stderr)
            return 1
        status = 0
        backup = bilan.sauvegarde
        if backup is not None:
            out(f"sauvegarde {backup.id} {backup.statut} {backup.taille_octets or 0} octets"
                + (f": {backup.message_erreur}" if backup.message_erreur else ""))
            status = 0 if backup.statut == "TERMINEE" else 1
        else:
            out("aucune sauvegarde due")
        for pruned in bilan.supprimees:
            out(f"supprimée (rétention): {pruned.id} {pruned.nom}")
        return status
    finally:
        await engine.dispose()
        sqlite_write_intent.reset(token)
