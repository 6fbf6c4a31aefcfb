"""``unionflow jobs surveiller``: evaluate now (cron), print the active alerts, exit like a Nagios check:
0 nothing active, 1 WARNING, 2 CRITICAL or database unreachable."""

from __future__ import annotations

import sys
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.db import create_engine, create_sessionmaker, sqlite_write_intent
from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.models import AlerteSysteme
from unionflow.monitoring.evaluator import EvaluationResult, MonitoringEvaluator
from unionflow.monitoring.repository import AlerteSystemeRepository, MesureRepository

EXIT = {"INFO": 0, "WARNING": 1, "CRITICAL": 2}


async def evaluer(session: AsyncSession, settings: Settings) -> tuple[EvaluationResult, list[AlerteSysteme]]:
    """Evaluate now, commit, and return the outcome with the alerts still active (CLI and scheduler)."""
    result = await MonitoringEvaluator(session, settings).run(force=True)
    await session.commit()
    return result, await AlerteSystemeRepository(session).active()


async def surveiller(settings: Settings, out: Callable[[str], None] = print) -> int:
    token = sqlite_write_intent.set(True)  # the evaluation writes: take SQLite's write lock up front
    engine = create_engine(settings)
    try:
        async with create_sessionmaker(engine)() as session:
            try:
                await MesureRepository(session).ping()
            except Exception as exc:
                # Nowhere to store this alert: the exit status and stderr are the alert (cron mails it).
                print(f"CRITICAL BASE_DONNEES_INDISPONIBLE {exc.__class__.__name__}: {exc}", file=sys.stderr)
                return 2
            result, active = await evaluer(session, settings)
        out(f"évaluation: ouvertes={result.ouvertes} fermées={result.fermees} en erreur={result.en_erreur}")
        for alert in sorted(active, key=lambda a: -EXIT.get(a.niveau, 0)):
            out(f"{alert.niveau} {alert.code} {alert.message}")
        return max((EXIT.get(a.niveau, 0) for a in active), default=0)
    finally:
        await engine.dispose()
        sqlite_write_intent.reset(token)


async def _surveiller(ctx: Contexte) -> Compteurs:
    async with ctx.sessionmaker() as session:
        result, active = await evaluer(session, ctx.settings)
    return {"ouvertes": len(result.ouvertes), "fermees": len(result.fermees), "enErreur": len(result.en_erreur),
            "actives": len(active)}


SURVEILLER = Job("surveiller", "Évaluation des alertes système",
                 lambda s: s.job_surveiller_secondes, lambda s: 0, _surveiller)
