"""Mirror delivery outcomes onto the records that asked for a notification (their own tables stay the
dedup and history records of their areas)."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Notification, NotificationEvenement, RappelCotisation

RAPPEL_COTISATION = "RappelCotisation"
NOTIFICATION_EVENEMENT = "NotificationEvenement"
JETON_REINITIALISATION = "JetonReinitialisation"


async def synchroniser_source(session: AsyncSession, row: Notification) -> None:
    if row.source_id is None:
        return
    delivered = row.statut == "ENVOYEE"
    if row.source_type == RAPPEL_COTISATION:
        if delivered:
            await session.execute(update(RappelCotisation).where(RappelCotisation.id == row.source_id)
                                  .values(statut="ENVOYE", date_envoi=row.date_envoi))
        elif row.statut == "ECHOUEE":
            # A reminder counts as delivered if any of its channels got through.
            await session.execute(update(RappelCotisation).where(RappelCotisation.id == row.source_id,
                                                                 RappelCotisation.statut != "ENVOYE")
                                  .values(statut="ECHEC"))
    elif row.source_type == JETON_REINITIALISATION and row.statut in ("ENVOYEE", "ECHOUEE"):
        # The body holds a live password-reset link: it leaves the database once the outbox is done with it.
        await session.execute(update(Notification).where(Notification.id == row.id)
                              .values(corps="(lien de réinitialisation retiré après traitement)"))
    elif row.source_type == NOTIFICATION_EVENEMENT and delivered:
        await session.execute(update(NotificationEvenement)
                              .where(NotificationEvenement.id == row.source_id,
                                     NotificationEvenement.date_envoi.is_(None))
                              .values(date_envoi=row.date_envoi))
