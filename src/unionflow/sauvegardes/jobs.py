"""``unionflow jobs sauvegarder``: run by cron (e.g. every 15 minutes). Takes the automatic backup when the
schedule says it is due (or with ``--force``), then applies the retention. Unlike a request, the job commits
between steps so that a running backup is visible as EN_COURS and a crash leaves a trace."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime

from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker, sqlite_write_intent
from unionflow.core.errors import UnionFlowError
from unionflow.sauvegardes.service import BackupService


async def sauvegarder(settings: Settings, *, force: bool = False, now: datetime | None = None,
                      out: Callable[[str], None] = print) -> int:
    token = sqlite_write_intent.set(True)
    engine = create_engine(settings)
    status = 0
    try:
        async with create_sessionmaker(engine)() as session:
            service = BackupService(session, None, settings, engine)
            if force or await service.due(now):
                try:
                    backup = await service.start("AUTOMATIQUE")
                except UnionFlowError as exc:
                    print(f"error: {exc.detail}", file=sys.stderr)
                    return 1
                await session.commit()
                await service.finish(backup)
                await session.commit()
                out(f"sauvegarde {backup.id} {backup.statut} {backup.taille_octets or 0} octets"
                    + (f": {backup.message_erreur}" if backup.message_erreur else ""))
                status = 0 if backup.statut == "TERMINEE" else 1
            else:
                out("aucune sauvegarde due")
            pruned = await service.prune(now)
            await session.commit()
            for backup in pruned:
                out(f"supprimée (rétention): {backup.id} {backup.nom}")
        return status
    finally:
        await engine.dispose()
        sqlite_write_intent.reset(token)
