"""The scheduled job of the notifications area (``unionflow jobs envoyer-notifications`` runs the same function)."""

from __future__ import annotations

from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.notifications.delivery import envoyer_notifications


async def _envoyer_notifications(ctx: Contexte) -> Compteurs:
    bilan = await envoyer_notifications(ctx.sessionmaker, ctx.settings)
    return {"envoyees": bilan.envoyees, "reportees": bilan.reportees, "echouees": bilan.echouees}


ENVOYER_NOTIFICATIONS = Job("envoyer-notifications", "Livraison des e-mails et SMS en attente (rappels compris)",
                            lambda s: s.job_envoyer_notifications_secondes, lambda s: 0, _envoyer_notifications)
