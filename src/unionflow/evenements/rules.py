"""Rules shared by events and registrations: effective status, closing time, waiting-list promotion."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.evenements.repository import InscriptionRepository
from unionflow.evenements.schemas import StatutEvenement, StatutInscription
from unionflow.models import Evenement, InscriptionEvenement, NotificationEvenement
from unionflow.models.base import utcnow
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.sources import NOTIFICATION_EVENEMENT
from unionflow.webhooks import emission as webhooks

MODULE = "EVENEMENTS"


def statut_effectif(evt: Evenement, now: datetime) -> StatutEvenement:
    if evt.statut == StatutEvenement.ANNULE:
        return StatutEvenement.ANNULE
    if evt.date_fin <= now:
        return StatutEvenement.TERMINE
    if evt.date_debut <= now:
        return StatutEvenement.EN_COURS
    return StatutEvenement(evt.statut)


def closing_time(evt: Evenement) -> datetime:
    """Registrations close at dateLimiteInscription, or when the event starts if none is set."""
    return evt.date_limite_inscription or evt.date_debut


_SUJETS = {"EVENEMENT_ANNULE": "Événement annulé", "INSCRIPTION_CONFIRMEE": "Inscription confirmée"}


async def notifier(session: AsyncSession, evt: Evenement, membre_id: uuid.UUID, kind: str, message: str) -> None:
    """Record the notice (this area's history) and queue its delivery in the Notifications outbox."""
    repo = InscriptionRepository(session)
    notice = NotificationEvenement(id=uuid.uuid4(), evenement_id=evt.id, membre_id=membre_id,
                                   type_notification=kind, message=message)
    repo.add(notice)
    membre = await repo.membre(membre_id)
    assert membre is not None
    await Emetteur(session, None).emettre(membre, kind, f"{_SUJETS.get(kind, 'Événement')}: {evt.titre}", message,
                                          organisation_id=evt.organisation_id,
                                          source=(NOTIFICATION_EVENEMENT, notice.id))


async def promote_waiting(session: AsyncSession, auth: AuthContext, evt: Evenement) -> list[InscriptionEvenement]:
    """Confirm waiting registrations, first come first served, while places are free. The caller holds the
    event's row lock."""
    if statut_effectif(evt, utcnow()) in (StatutEvenement.ANNULE, StatutEvenement.TERMINE):
        return []
    repo = InscriptionRepository(session)
    if evt.capacite_max is None:
        promoted = await repo.waiting(evt.id)
    else:
        free = evt.capacite_max - await repo.count_confirmed(evt.id)
        promoted = await repo.waiting(evt.id, limit=free) if free > 0 else []
    now = utcnow()
    for ins in promoted:
        ins.statut = StatutInscription.CONFIRMEE.value
        ins.date_confirmation = now
        await notifier(session, evt, ins.membre_id, "INSCRIPTION_CONFIRMEE",
                       f"Une place s'est libérée: votre inscription à « {evt.titre} » est confirmée.")
        await audit.record(session, auth, action="PROMOUVOIR", module=MODULE, entite_type="InscriptionEvenement",
                           entite_id=ins.id, before={"statut": "EN_ATTENTE"}, after={"statut": "CONFIRMEE"},
                           organisation_id=evt.organisation_id)
        await webhook_inscription(session, evt, ins, webhooks.EvenementWebhook.INSCRIPTION_CONFIRMEE)
    await session.flush()
    return promoted


async def webhook_inscription(session: AsyncSession, evt: Evenement, ins: InscriptionEvenement,
                              evenement: webhooks.EvenementWebhook) -> None:
    await webhooks.emettre(session, evt.organisation_id, evenement, {
        "inscriptionId": ins.id, "evenementId": evt.id, "titre": evt.titre, "membreId": ins.membre_id,
        "statut": ins.statut})
