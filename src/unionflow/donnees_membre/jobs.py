"""Retention of personal data (Loi 2008-12, art. 35-3: kept no longer than the purpose needs; docs/conformite.md
D9 and its retention table): a daily job.

- a member struck off (RADIE) more than ``donnees_radies_conservation_ans`` years ago who owes no dues is
  pseudonymised as an approved erasure would (``effacement.effacer_identite``); the books keep his amounts and
  receipts;
- the texts of notifications (address, subject, body) and of inbound SMS older than
  ``donnees_messages_conservation_jours`` days are blanked;
- the reads of members' files (access log) older than ``donnees_acces_conservation_jours`` days are deleted.
"""

from __future__ import annotations

from datetime import timedelta

from unionflow.core import audit
from unionflow.core.jobs import Compteurs, Contexte, Job
from unionflow.cotisations.repository import CotisationSystemRepository
from unionflow.donnees_membre.effacement import effacer_identite
from unionflow.donnees_membre.registre import EFFACE
from unionflow.donnees_membre.service import MODULE
from unionflow.donnees_personnelles.repository import AccesDossierSystemRepository
from unionflow.membres.repository import MembreRepository
from unionflow.models.base import utcnow
from unionflow.notifications.repository import NotificationSystemRepository
from unionflow.sms.repository import SmsEntrantRepository

MOTIF = "Durée de conservation échue: radié depuis plus de {ans} ans, rien dû (Loi 2008-12)"


async def _retention(ctx: Contexte) -> Compteurs:
    s = ctx.settings
    now = utcnow()
    limite_radies = now - timedelta(days=365 * s.donnees_radies_conservation_ans)
    limite_textes = now - timedelta(days=s.donnees_messages_conservation_jours)
    async with ctx.sessionmaker() as session:
        radies = await MembreRepository(session, None).radies_avant(limite_radies)
        redevables = await CotisationSystemRepository(session).membres_redevables([m.id for m in radies])
        effaces = 0
        for membre in radies:
            if membre.id in redevables:
                continue  # open money: kept until the dues are settled or cancelled
            await effacer_identite(session, membre, s.issuer, MOTIF.format(ans=s.donnees_radies_conservation_ans))
            await audit.record(session, None, action="EFFACER_DONNEES", module=MODULE, entite_type="Membre",
                               entite_id=membre.id, severite="WARNING",
                               description="Identité pseudonymisée: durée de conservation échue")
            effaces += 1
        counts: Compteurs = {
            "membresEffaces": effaces,
            "membresRedevables": len(redevables),
            "notificationsEffacees": await NotificationSystemRepository(session).effacer_corps_avant(
                limite_textes, EFFACE),
            "smsEffaces": await SmsEntrantRepository(session).effacer_textes_avant(limite_textes, EFFACE),
            "accesSupprimes": await AccesDossierSystemRepository(session).supprimer_avant(
                now - timedelta(days=s.donnees_acces_conservation_jours)),
        }
        await session.commit()
    return counts


RETENTION_DONNEES = Job("retention-donnees", "Pseudonymisation des radiés anciens, effacement des vieux textes et "
                        "du journal des accès anciens (Loi 2008-12)", lambda s: s.job_retention_donnees_secondes,
                        lambda s: s.job_retention_donnees_decalage_secondes, _retention)
