"""Delivery job: ``unionflow jobs livrer-webhooks``, or ``livrer_webhooks(...)`` from a scheduler.

Claiming works like the notification outbox (notifications/delivery.py): due rows of active subscriptions are
leased in a short committed transaction (``FOR UPDATE SKIP LOCKED`` on PostgreSQL), each POST runs outside
any transaction, and its outcome is committed on its own. A crash re-sends at most the request in flight,
which receivers de-duplicate on the event ``id``.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.db import sqlite_write_intent
from unionflow.core.roles import Role
from unionflow.models import AbonnementWebhook, LivraisonWebhook
from unionflow.models.base import utcnow
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.schemas import TypeNotification
from unionflow.notifications.workflow import membres_avec_roles
from unionflow.webhooks.repository import LivraisonWebhookSystemRepository
from unionflow.webhooks.securite import SIGNATURE_HEADER, motif_destination_refusee, signer

EN_ATTENTE, LIVREE, ECHOUEE = "EN_ATTENTE", "LIVREE", "ECHOUEE"


@dataclass
class BilanLivraison:
    livrees: int = 0
    reportees: int = 0
    echouees: int = 0
    abonnements_desactives: int = 0

    @property
    def traitees(self) -> int:
        return self.livrees + self.reportees + self.echouees


@dataclass
class Tentative:
    code_http: int | None
    erreur: str | None
    duree_ms: int
    definitive: bool = False

    @property
    def reussie(self) -> bool:
        return self.erreur is None


async def reclamer(session: AsyncSession, limit: int, now: datetime,
                   bail: timedelta) -> list[tuple[LivraisonWebhook, str, str]]:
    """Lease due deliveries of active subscriptions: (row, url, secret). The caller commits."""
    return await LivraisonWebhookSystemRepository(session).lease_due(limit, now, bail)


class LivreurWebhooks:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], settings: Settings,
                 http: httpx.AsyncClient) -> None:
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.http = http

    async def envoyer(self, row: LivraisonWebhook, url: str, secret: str) -> Tentative:
        debut = time.monotonic()
        if why := await motif_destination_refusee(url, self.settings.webhook_autoriser_adresses_privees):
            return Tentative(None, why, 0, definitive=True)
        corps = json.dumps(row.charge, ensure_ascii=False, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "UnionFlow-Webhooks/1",
                   SIGNATURE_HEADER: signer(secret, int(time.time()), corps),
                   "UnionFlow-Event": row.evenement, "UnionFlow-Delivery": str(row.id)}
        try:
            response = await self.http.post(url, content=corps, headers=headers)
        except httpx.HTTPError as exc:
            return Tentative(None, f"{type(exc).__name__}: {exc}"[:1000], int((time.monotonic() - debut) * 1000))
        duree = int((time.monotonic() - debut) * 1000)
        if response.is_success:
            return Tentative(response.status_code, None, duree)
        return Tentative(response.status_code, f"HTTP {response.status_code} {response.text[:200]}", duree)

    def _delai(self, tentatives: int) -> timedelta:
        s = self.settings
        return timedelta(seconds=min(s.webhook_backoff_seconds * 2 ** (tentatives - 1), s.webhook_backoff_max_seconds))

    async def enregistrer(self, row_id: uuid.UUID, tentative: Tentative, bilan: BilanLivraison) -> None:
        now = utcnow()
        async with self.sessionmaker() as session:
            row, abonnement = await LivraisonWebhookSystemRepository(session).lock_with_abonnement(row_id)
            row.tentatives += 1
            row.historique = [*row.historique, {"date": now.isoformat(), "codeHttp": tentative.code_http,
                                                "erreur": tentative.erreur, "dureeMs": tentative.duree_ms}]
            row.dernier_code_http, row.derniere_erreur, row.verrouillee_jusqua = (
                tentative.code_http, tentative.erreur, None)
            if tentative.reussie:
                row.statut, row.date_livraison, row.prochaine_tentative = LIVREE, now, None
                abonnement.echecs_consecutifs = 0
                bilan.livrees += 1
            else:
                abonnement.echecs_consecutifs += 1
                if tentative.definitive or row.tentatives >= self.settings.webhook_max_tentatives:
                    row.statut, row.prochaine_tentative = ECHOUEE, None
                    bilan.echouees += 1
                else:
                    row.prochaine_tentative = now + self._delai(row.tentatives)
                    bilan.reportees += 1
                seuil = self.settings.webhook_echecs_avant_desactivation
                if abonnement.actif and abonnement.echecs_consecutifs >= seuil:
                    await desactiver(session, abonnement, tentative.erreur or "échec")
                    bilan.abonnements_desactives += 1
            await session.commit()

    async def lot(self, bilan: BilanLivraison) -> int:
        async with self.sessionmaker() as session:
            claimed = await reclamer(session, self.settings.webhook_lot, utcnow(),
                                     timedelta(seconds=self.settings.webhook_bail_seconds))
            await session.commit()
        for row, url, secret in claimed:
            await self.enregistrer(row.id, await self.envoyer(row, url, secret), bilan)
        return len(claimed)

    async def run(self, max_lots: int | None = None) -> BilanLivraison:
        token = sqlite_write_intent.set(True)
        try:
            bilan = BilanLivraison()
            lots = 0
            while (max_lots is None or lots < max_lots) and await self.lot(bilan):
                lots += 1
            if bilan.traitees:
                async with self.sessionmaker() as session:
                    await audit.record(session, None, action="LIVRER", module="WEBHOOKS",
                                       entite_type="LivraisonWebhook",
                                       description=f"{bilan.livrees} livrée(s), {bilan.reportees} reportée(s), "
                                                   f"{bilan.echouees} échouée(s)",
                                       after={"livrees": bilan.livrees, "reportees": bilan.reportees,
                                              "echouees": bilan.echouees,
                                              "abonnementsDesactives": bilan.abonnements_desactives})
                    await session.commit()
            return bilan
        finally:
            sqlite_write_intent.reset(token)


async def desactiver(session: AsyncSession, abonnement: AbonnementWebhook, derniere_erreur: str) -> None:
    """Stop sending to a receiver that keeps failing, and tell the organisation's administrators through the
    notification outbox (same transaction)."""
    abonnement.actif = False
    abonnement.desactive_le = utcnow()
    abonnement.motif_desactivation = (f"{abonnement.echecs_consecutifs} échecs consécutifs; dernier: "
                                      f"{derniere_erreur}")[:500]
    await audit.record(session, None, action="DESACTIVER", module="WEBHOOKS", entite_type="AbonnementWebhook",
                       entite_id=abonnement.id, organisation_id=abonnement.organisation_id, severite="WARNING",
                       description=abonnement.motif_desactivation, after={"actif": False})
    admins = await membres_avec_roles(session, abonnement.organisation_id, {Role.ADMIN_ORGANISATION.value})
    sujet = "Webhook désactivé après des échecs répétés"
    corps = (f"L'abonnement webhook vers {abonnement.url} a été désactivé: {abonnement.motif_desactivation}. "
             "Corrigez le récepteur puis réactivez l'abonnement; les livraisons en attente reprendront.")
    await Emetteur(session, "systeme").emettre_lot(
        admins, TypeNotification.WEBHOOK_DESACTIVE.value, lambda _m, _c: (sujet, corps),
        organisation_id=abonnement.organisation_id, source=("AbonnementWebhook", abonnement.id))


async def livrer_webhooks(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings,
                          max_lots: int | None = None, http: httpx.AsyncClient | None = None) -> BilanLivraison:
    """The job. Redirects are not followed: a receiver moving must be re-registered (and a redirect to an
    internal address would bypass the destination check)."""
    if http is not None:
        return await LivreurWebhooks(sessionmaker, settings, http).run(max_lots)
    async with httpx.AsyncClient(timeout=settings.webhook_timeout_seconds, follow_redirects=False) as client:
        return await LivreurWebhooks(sessionmaker, settings, client).run(max_lots)
