"""Retention of personal data (Loi 2008-12, art. 35-3: kept no longer than the purpose needs; docs/conformite.md
D9 and its retention table): a daily job.

- a member struck off (RADIE) more than ``donnees_radies_conservation_ans`` years ago who owes no dues is
  pseudonymised as an approved erasure would (``effacement.effacer_identite``); the books keep his amounts and
  receipts;
- the texts of notifications (address, subject, body), of event notices, of inbound SMS and of the members'
  internal messages older than ``donnees_messages_conservation_jours`` days are blanked;
- exchanges settled more than ``donnees_echanges_conservation_jours`` days ago lose their texts and names: closed
  tickets (and their messages), comments on ended events, the author of a settled suggestion; opinions on the
  service are deleted;
- the reads of members' files (access log) older than ``donnees_acces_conservation_jours`` days are deleted;
- the audio of voice notes older than ``donnees_messages_conservation_jours`` days (their documents and files) is
  deleted, as the texts of messages of that age are blanked.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.documents.repository import DocumentRepository
from unionflow.documents.storage import build_storage
from unionflow.donnees_membre.effacement import effacer_identite
from unionflow.donnees_membre.registre import EFFACE
from unionflow.donnees_membre.service import MODULE
from unionflow.donnees_personnelles.repository import AccesDossierSystemRepository
from unionflow.evenements.repository import FeedbackEvenementRepository, NotificationEvenementRepository
from unionflow.feedback.repository import FeedbackRepository
from unionflow.membres.repository import MembreRepository
from unionflow.messagerie.repository import ConversationRepository
from unionflow.models.base import utcnow
from unionflow.notifications.repository import NotificationSystemRepository
from unionflow.sms.repository import SmsEntrantRepository
from unionflow.suggestions.repository import SuggestionRepository
from unionflow.tickets.repository import TicketRepository

MOTIF = "Durée de conservation échue: radié depuis plus de {ans} ans, rien dû (Loi 2008-12)"


async def _radies(ctx: Contexte, session: AsyncSession) -> Compteurs:
    """Struck-off members past the period who owe nothing are pseudonymised; those owing are counted, kept."""
    ans = ctx.settings.donnees_radies_conservation_ans
    radies = await MembreRepository(session, None).radies_avant(utcnow() - timedelta(days=365 * ans))
    redevables = await CotisationSystemRepository(session).membres_redevables([m.id for m in radies])
    effaces = 0
    for membre in radies:
        if membre.id in redevables:
            continue  # open money: kept until the dues are settled or cancelled
        await effacer_identite(session, membre, ctx.settings.issuer, MOTIF.format(ans=ans))
        await audit.record(session, None, action="EFFACER_DONNEES", module=MODULE, entite_type="Membre",
                           entite_id=membre.id, severite="WARNING",
                           description="Identité pseudonymisée: durée de conservation échue")
        effaces += 1
    return {"membresEffaces": effaces, "membresRedevables": len(redevables)}


async def _textes(ctx: Contexte, session: AsyncSession) -> Compteurs:
    """Messages after ``donnees_messages_conservation_jours``, settled exchanges after
    ``donnees_echanges_conservation_jours``, the access log after ``donnees_acces_conservation_jours``."""
    s, now = ctx.settings, utcnow()
    textes = now - timedelta(days=s.donnees_messages_conservation_jours)
    echanges = now - timedelta(days=s.donnees_echanges_conservation_jours)
    return {
        "notificationsEffacees": await NotificationSystemRepository(session).effacer_corps_avant(textes, EFFACE),
        "avisEvenementEffaces": await NotificationEvenementRepository(session).effacer_messages_avant(textes, EFFACE),
        "smsEffaces": await SmsEntrantRepository(session).effacer_textes_avant(textes, EFFACE),
        "messagesEffaces": await ConversationRepository(session, None).effacer_messages_avant(textes, EFFACE),
        "ticketsEffaces": await TicketRepository(session, None).effacer_fermes_avant(echanges, EFFACE),
        "commentairesEffaces": await FeedbackEvenementRepository(session).effacer_commentaires_avant(
            echanges, EFFACE),
        "suggestionsAnonymisees": await SuggestionRepository(session, None).effacer_auteurs_avant(echanges, EFFACE),
        "avisSupprimes": await FeedbackRepository(session, None).supprimer_avant(echanges),
        "accesSupprimes": await AccesDossierSystemRepository(session).supprimer_avant(
            now - timedelta(days=s.donnees_acces_conservation_jours)),
    }


async def _notes_vocales(ctx: Contexte, session: AsyncSession) -> Compteurs:
    """Voice notes past the messages' period: rows deleted, then their files, before the commit. A failed commit
    leaves rows whose file is gone, which the next run deletes (a missing file is no error); the other order could
    leave the audio of a deleted row on the disk for ever."""
    limite = utcnow() - timedelta(days=ctx.settings.donnees_messages_conservation_jours)
    ids = await ConversationRepository(session, None).detacher_notes_vocales_avant(limite)
    fichiers = await DocumentRepository(session, None).supprimer_documents(ids)
    storage = build_storage(ctx.settings) if fichiers else None
    for cle, backend in fichiers:
        if storage is not None and backend == storage.backend:
            await storage.delete(cle)
    return {"notesVocalesSupprimees": len(ids)}


async def _retention(ctx: Contexte) -> Compteurs:
    async with ctx.sessionmaker() as session:
        counts = {**await _radies(ctx, session), **await _textes(ctx, session),
                  **await _notes_vocales(ctx, session)}
        await session.commit()
    return counts


RETENTION_DONNEES = Job("retention-donnees", "Pseudonymisation des radiés anciens, effacement des vieux textes, "
                        "des échanges clos et du journal des accès anciens (Loi 2008-12)",
                        lambda s: s.job_retention_donnees_secondes, lambda s: s.job_retention_donnees_decalage_secondes,
                        _retention)
