"""The periodic jobs the scheduler runs: the same functions as the ``unionflow jobs ...`` commands, each
returning its counts for the run history. Each job is safe to overlap with a manual run (row claims, SKIP
LOCKED, compare-and-set in the areas); the scheduler adds that one scheduled run happens per slot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.cotisations.jobs import marquer_retards
from unionflow.cotisations.synthese import compacter_synthese
from unionflow.export.formats import dossier_exports
from unionflow.models import ExecutionJob, JetonReinitialisation, LoginThrottle, RefreshToken
from unionflow.models.base import utcnow
from unionflow.monitoring.jobs import evaluer
from unionflow.notifications.delivery import envoyer_notifications
from unionflow.sauvegardes.jobs import executer_sauvegarde
from unionflow.webhooks.delivery import livrer_webhooks

Compteurs = dict[str, int]


class EchecJob(Exception):
    """A job that ran to its end but reports failure (e.g. backup ECHOUEE): the run is recorded ECHOUEE."""

    def __init__(self, message: str, compteurs: Compteurs) -> None:
        super().__init__(message)
        self.compteurs = compteurs


@dataclass(frozen=True)
class Contexte:
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    settings: Settings


@dataclass(frozen=True)
class Job:
    nom: str
    description: str
    intervalle: Callable[[Settings], int]
    decalage: Callable[[Settings], int]
    executer: Callable[[Contexte], Awaitable[Compteurs]]


async def _marquer_retards(ctx: Contexte) -> Compteurs:
    return {"marquees": await marquer_retards(ctx.sessionmaker)}


async def _compacter_synthese(ctx: Contexte) -> Compteurs:
    return await compacter_synthese(ctx.sessionmaker)


async def _envoyer_notifications(ctx: Contexte) -> Compteurs:
    bilan = await envoyer_notifications(ctx.sessionmaker, ctx.settings)
    return {"envoyees": bilan.envoyees, "reportees": bilan.reportees, "echouees": bilan.echouees}


async def _livrer_webhooks(ctx: Contexte) -> Compteurs:
    bilan = await livrer_webhooks(ctx.sessionmaker, ctx.settings)
    return {"livrees": bilan.livrees, "reportees": bilan.reportees, "echouees": bilan.echouees,
            "abonnementsDesactives": bilan.abonnements_desactives}


async def _surveiller(ctx: Contexte) -> Compteurs:
    async with ctx.sessionmaker() as session:
        result, active = await evaluer(session, ctx.settings)
    return {"ouvertes": len(result.ouvertes), "fermees": len(result.fermees), "enErreur": len(result.en_erreur),
            "actives": len(active)}


async def _sauvegarder(ctx: Contexte) -> Compteurs:
    bilan = await executer_sauvegarde(ctx.engine, ctx.settings)
    compteurs = {"sauvegardes": int(bilan.sauvegarde is not None), "supprimees": len(bilan.supprimees)}
    if bilan.erreur:
        raise EchecJob(bilan.erreur, compteurs)
    if bilan.sauvegarde is not None and bilan.sauvegarde.statut != "TERMINEE":
        raise EchecJob(bilan.sauvegarde.message_erreur or f"Sauvegarde {bilan.sauvegarde.statut}", compteurs)
    return compteurs


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
        counts: Compteurs = {}
        for key, stmt in (
            ("jetonsRafraichissement", delete(RefreshToken).where(RefreshToken.expires_at < now - timedelta(days=1))),
            ("compteursConnexion", delete(LoginThrottle).where(
                LoginThrottle.window_start < now - timedelta(seconds=s.login_window_seconds))),
            ("jetonsReinitialisation", delete(JetonReinitialisation).where(
                JetonReinitialisation.expires_at < now - timedelta(days=1))),
            ("executions", delete(ExecutionJob).where(
                ExecutionJob.date_debut < now - timedelta(days=s.planificateur_retention_jours),
                ExecutionJob.statut != "EN_COURS")),
        ):
            result = await session.execute(stmt.execution_options(synchronize_session=False))
            counts[key] = int(getattr(result, "rowcount", 0) or 0)
        await session.commit()
    counts["fichiersExport"] = await asyncio.to_thread(_purger_exports, s)
    return counts


JOBS: tuple[Job, ...] = (
    Job("marquer-retards", "Cotisations échues passées EN_RETARD",
        lambda s: s.job_marquer_retards_secondes, lambda s: s.job_marquer_retards_decalage_secondes,
        _marquer_retards),
    Job("envoyer-notifications", "Livraison des e-mails et SMS en attente (rappels compris)",
        lambda s: s.job_envoyer_notifications_secondes, lambda s: 0, _envoyer_notifications),
    Job("livrer-webhooks", "Livraison signée des webhooks en attente (nouvelles tentatives comprises)",
        lambda s: s.job_livrer_webhooks_secondes, lambda s: 0, _livrer_webhooks),
    Job("surveiller", "Évaluation des alertes système",
        lambda s: s.job_surveiller_secondes, lambda s: 0, _surveiller),
    Job("sauvegarder", "Sauvegarde automatique si due, puis rétention",
        lambda s: s.job_sauvegarder_secondes, lambda s: 0, _sauvegarder),
    Job("nettoyer", "Purge des jetons expirés, de l'historique et des anciens fichiers d'export",
        lambda s: s.job_nettoyer_secondes, lambda s: s.job_nettoyer_decalage_secondes, _nettoyer),
    Job("compacter-synthese", "Report des écarts des cotisations dans la synthèse des statistiques",
        lambda s: s.job_compacter_synthese_secondes, lambda s: 0, _compacter_synthese),
)
