"""The scheduler's own job: retention of technical rows nobody reads once expired, and of old export files. The
other areas declare their jobs in their own ``jobs.py``; ``unionflow/registres.py`` collects them all."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from unionflow.auth.repository import JetonReinitialisationRepository, LoginThrottleRepository, RefreshTokenRepository
from unionflow.config import Settings
from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.models.base import utcnow
from unionflow.scheduler.repository import ExecutionRepository
from unionflow.tasks.service import dossier_exports


def _purger_exports(settings: Settings) -> int:
    """Background export files hold members' personal data: kept ``export_retention_jours`` days for download,
    then deleted (the task row stays; its file link answers 404)."""
    dossier = dossier_exports(settings)
    if not dossier.is_dir():
        return 0
    limite = time.time() - settings.export_retention_jours * 86400
    supprimes = 0
    for fichier in dossier.iterdir():
        if fichier.is_file() and fichier.stat().st_mtime < limite:
            fichier.unlink(missing_ok=True)
            supprimes += 1
    return supprimes


async def _nettoyer(ctx: Contexte) -> Compteurs:
    """Retention of technical rows nobody reads once expired: refresh tokens, throttle windows, reset tokens,
    the run history itself (``planificateur_retention_jours``), and old export files."""
    now = utcnow()
    s = ctx.settings
    async with ctx.sessionmaker() as session:
        counts: Compteurs = {
            "jetonsRafraichissement": await RefreshTokenRepository(session).delete_expired(now - timedelta(days=1)),
            "compteursConnexion": await LoginThrottleRepository(session).delete_started_before(
                now - timedelta(seconds=s.login_window_seconds)),
            "jetonsReinitialisation": await JetonReinitialisationRepository(session).delete_expired(
                now - timedelta(days=1)),
            "executions": await ExecutionRepository(session).delete_finished_before(
                now - timedelta(days=s.planificateur_retention_jours)),
        }
        await session.commit()
    counts["fichiersExport"] = await asyncio.to_thread(_purger_exports, s)
    return counts


NETTOYER = Job("nettoyer", "Purge des jetons expirés, de l'historique et des anciens fichiers d'export",
               lambda s: s.job_nettoyer_secondes, lambda s: s.job_nettoyer_decalage_secondes, _nettoyer)
