"""The scheduled job of the notifications area (``unionflow jobs envoyer-notifications`` runs the same function)."""

from __future__ import annotations

from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.notifications.delivery import envoyer_notifications


async def _envoyer_notifications(ctx: Contexte) -> Compteurs:
    # A run ends after about its interval in batches (an SMS batch lasts a second): a wave of reminders far
    # larger than the gateway's rate goes out over the following runs, never overlapping the next slot.
    bilan = await envoyer_notifications(ctx.sessionmaker, ctx.settings,
                                        max_lots=max(1, ctx.settings.job_envoyer_notifications_secondes))
    return {"envoyees": bilan.envoyees, "reportees": bilan.reportees, "echouees": bilan.echouees}


ENVOYER_NOTIFICATIONS = Job("envoyer-notifications", "Livraison des e-mails et SMS en attente (rappels compris)",
                            lambda s: s.job_envoyer_notifications_secondes, lambda s: 0, _envoyer_notifications)
