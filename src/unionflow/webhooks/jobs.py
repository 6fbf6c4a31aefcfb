"""The scheduled job of the webhooks area (``unionflow jobs livrer-webhooks`` runs the same function)."""

from __future__ import annotations

from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.webhooks.delivery import livrer_webhooks


async def _livrer_webhooks(ctx: Contexte) -> Compteurs:
    bilan = await livrer_webhooks(ctx.sessionmaker, ctx.settings)
    return {"livrees": bilan.livrees, "reportees": bilan.reportees, "echouees": bilan.echouees,
            "abonnementsDesactives": bilan.abonnements_desactives}


LIVRER_WEBHOOKS = Job("livrer-webhooks", "Livraison signée des webhooks en attente (nouvelles tentatives comprises)",
                      lambda s: s.job_livrer_webhooks_secondes, lambda s: 0, _livrer_webhooks)
