"""Mirror delivery outcomes onto the records that asked for a notification (their own tables stay the
dedup and history records of their areas)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Notification
from unionflow.models.notification import StatutNotification
from unionflow.notifications.repository import NotificationSystemRepository

RAPPEL_COTISATION = "RappelCotisation"
NOTIFICATION_EVENEMENT = "NotificationEvenement"
JETON_REINITIALISATION = "JetonReinitialisation"
CODE_PIN_SMS = "CodePinSms"


async def synchroniser_source(session: AsyncSession, row: Notification) -> None:
    if row.source_id is None:
        return
    delivered = row.statut == StatutNotification.ENVOYEE
    repository = NotificationSystemRepository(session)
    if row.source_type == RAPPEL_COTISATION:
        if delivered:
            await repository.mark_rappel_envoye(row.source_id, row.date_envoi)
        elif row.statut == StatutNotification.ECHOUEE:
            # A reminder counts as delivered if any of its channels got through.
            await repository.mark_rappel_echec(row.source_id)
    elif row.source_type == JETON_REINITIALISATION and row.statut in (StatutNotification.ENVOYEE,
                                                                      StatutNotification.ECHOUEE):
        # The body holds a live password-reset link: it leaves the database once the outbox is done with it.
        await repository.replace_corps(row.id, "(lien de réinitialisation retiré après traitement)")
    elif row.source_type == CODE_PIN_SMS and row.statut in (StatutNotification.ENVOYEE, StatutNotification.ECHOUEE):
        # Same for the one-time code that sets a USSD PIN.
        await repository.replace_corps(row.id, "(code à usage unique retiré après traitement)")
    elif row.source_type == NOTIFICATION_EVENEMENT and delivered:
        await repository.mark_evenement_envoye(row.source_id, row.date_envoi)
