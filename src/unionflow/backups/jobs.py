"""``unionflow jobs sauvegarder`` and the scheduler's ``sauvegarder`` job: take the automatic backup when the
schedule says it is due (or with ``--force``), then apply the retention. Unlike a request, the job commits
between steps so that a running backup is visible as EN_COURS and a crash leaves a trace."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from unionflow.backups.service import SauvegardeService
from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker, sqlite_write_intent
from unionflow.core.errors import UnionFlowError
from unionflow.core.jobs import Avancer, Compteurs, Contexte, EchecJob, EchecTache, Job
from unionflow.models import Sauvegarde, Tache
from unionflow.models.monitoring import StatutSauvegarde


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
            status = 0 if backup.statut == StatutSauvegarde.TERMINEE else 1
        else:
            out("aucune sauvegarde due")
        for pruned in bilan.supprimees:
            out(f"supprimée (rétention): {pruned.id} {pruned.nom}")
        return status
    finally:
        await engine.dispose()
        sqlite_write_intent.reset(token)


async def sauvegarde_tache(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], str]:
    backup_id = uuid.UUID(str(tache.parametres["sauvegardeId"]))
    async with ctx.sessionmaker() as session:
        service = SauvegardeService(session, None, ctx.settings, ctx.engine)
        backup = await service.repo.get(backup_id)
        if backup is None or backup.statut != StatutSauvegarde.EN_COURS:
            raise EchecTache("Sauvegarde introuvable ou déjà terminée")
        # No transaction (on SQLite: no write lock) held while the dump runs.
        await session.commit()
        await service.terminer(backup)
        await session.commit()
    if backup.statut != StatutSauvegarde.TERMINEE:
        raise EchecTache(backup.message_erreur or f"Sauvegarde {backup.statut}")
    return ({"sauvegardeId": str(backup.id), "statut": backup.statut, "tailleOctets": backup.taille_octets,
             "sha256": backup.sha256}, f"/api/backups/{backup.id}")


async def _sauvegarder(ctx: Contexte) -> Compteurs:
    bilan = await executer_sauvegarde(ctx.engine, ctx.settings)
    compteurs = {"sauvegardes": int(bilan.sauvegarde is not None), "supprimees": len(bilan.supprimees)}
    if bilan.erreur:
        raise EchecJob(bilan.erreur, compteurs)
    if bilan.sauvegarde is not None and bilan.sauvegarde.statut != StatutSauvegarde.TERMINEE:
        raise EchecJob(bilan.sauvegarde.message_erreur or f"Sauvegarde {bilan.sauvegarde.statut}", compteurs)
    return compteurs


SAUVEGARDER = Job("sauvegarder", "Sauvegarde automatique si due, puis rétention",
                  lambda s: s.job_sauvegarder_secondes, lambda s: 0, _sauvegarder)
