"""Delivery worker: ``unionflow jobs envoyer-notifications`` (cron, systemd timer, or a loop).

Claiming is safe with several workers (core/outbox.py: leased in a short committed transaction). Each message
is sent outside any transaction, then its outcome is committed on its own, so a crash re-sends at most the
message in flight once its lease has passed.
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from unionflow.config import Settings
from unionflow.core import audit, metrics
from unionflow.core.db import sqlite_write_intent
from unionflow.models import Notification
from unionflow.models.base import utcnow
from unionflow.notifications.passerelles_sms import DeliveryError, transport_sms
from unionflow.notifications.repository import NotificationSystemRepository
from unionflow.notifications.schemas import Canal, StatutNotification
from unionflow.notifications.sources import synchroniser_source

S = StatutNotification


class Transport(Protocol):
    async def send(self, row: Notification) -> str | None:
        """Sends ``row``; the gateway's id of the message when it gives one (its delivery reports name it)."""


class SmtpTransport:
    """Stdlib smtplib in a worker thread: no extra dependency, and the event loop never blocks."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def _message(self, row: Notification) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = self.settings.smtp_from
        msg["To"] = row.adresse or ""
        msg["Subject"] = row.sujet
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(idstring=str(row.id), domain="unionflow.local")
        # Lets the receiving side (and our tests) tell each notification apart.
        msg["X-UnionFlow-Notification"] = str(row.id)
        msg.set_content(row.corps)
        return msg

    def _send_sync(self, row: Notification) -> None:
        s = self.settings
        assert s.smtp_host is not None
        with smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout_seconds) as smtp:
            if s.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password or "")
            smtp.send_message(self._message(row))

    async def send(self, row: Notification) -> str | None:
        if not self.settings.smtp_host:
            raise DeliveryError("Aucun serveur SMTP configuré (UNIONFLOW_SMTP_HOST)")
        try:
            await asyncio.to_thread(self._send_sync, row)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            permanent = all(c >= 500 for c in codes)
            raise DeliveryError(f"Destinataire refusé: {exc.recipients}", permanent=permanent) from exc
        except smtplib.SMTPResponseException as exc:
            raise DeliveryError(f"SMTP {exc.smtp_code}: {exc.smtp_error!r}", permanent=exc.smtp_code >= 500) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"SMTP: {type(exc).__name__}: {exc}") from exc
        return None


@dataclass
class BilanEnvoi:
    envoyees: int = 0
    reportees: int = 0
    echouees: int = 0

    @property
    def traitees(self) -> int:
        return self.envoyees + self.reportees + self.echouees


async def compter_dues(session: AsyncSession, now: datetime) -> int:
    """How many rows are due now (the CLI's progress bar total)."""
    return await NotificationSystemRepository(session).count_due(now)


async def reclamer(session: AsyncSession, settings: Settings, now: datetime, bail: timedelta) -> list[Notification]:
    """Lease due rows to this worker: up to ``notification_lot`` e-mails, and SMS up to the gateway's rate (one
    batch is one second's worth, ``sms_messages_par_seconde``). The caller commits."""
    repo = NotificationSystemRepository(session)
    emails = await repo.lease_due(settings.notification_lot, now, bail, (Canal.EMAIL.value,))
    sms = await repo.lease_due(min(settings.notification_lot, settings.sms_messages_par_seconde), now, bail,
                               (Canal.SMS.value,))
    return emails + sms


@dataclass
class _Bail:
    """The lease a batch holds: its value in the rows (the compare-and-set's token), when it was taken or
    extended (monotonic), and the rows lost to another worker."""

    jusqua: datetime
    depuis: float
    perdus: set[uuid.UUID] = field(default_factory=set)


class LivreurNotifications:
    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], settings: Settings,
                 transports: dict[str, Transport] | None = None,
                 pause: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.transports: dict[str, Transport] = transports or {
            Canal.EMAIL.value: SmtpTransport(settings), Canal.SMS.value: transport_sms(settings)}
        # How the worker waits out the rest of a second after a full batch of SMS (the gateway's rate).
        self.pause = pause
        self.sms_du_lot = 0
        # When the gateway answered each of the last ``rate`` SMS: the next one waits until the oldest of them is a
        # second old.
        self.envois_sms: deque[float] = deque(maxlen=max(1, settings.sms_messages_par_seconde))

    async def _record(self, row_id: uuid.UUID, tentatives: int, error: DeliveryError | None, bilan: BilanEnvoi,
                      reference: str | None = None) -> None:
        now = utcnow()
        values: dict[str, object] = {"tentatives": tentatives, "verrouillee_jusqua": None, "updated_at": now}
        if error is None:
            values.update(statut=S.ENVOYEE.value, date_envoi=now, derniere_erreur=None, prochaine_tentative=None,
                          reference_passerelle=reference)
            bilan.envoyees += 1
        elif error.permanent or tentatives >= self.settings.notification_max_tentatives:
            values.update(statut=S.ECHOUEE.value, derniere_erreur=str(error)[:1000], prochaine_tentative=None)
            bilan.echouees += 1
        else:
            delay = self.settings.notification_backoff_seconds * 2 ** (tentatives - 1)
            values.update(derniere_erreur=str(error)[:1000], prochaine_tentative=now + timedelta(seconds=delay))
            bilan.reportees += 1
        async with self.sessionmaker() as session:
            # A member may have read it in the app meanwhile (LUE): that status stays.
            row = await NotificationSystemRepository(session).update_pending(row_id, values)
            outcome = (row.canal, row.statut) if row is not None and row.statut == values.get("statut") else None
            if row is not None:
                await synchroniser_source(session, row)
            await session.commit()
        if outcome is not None:
            metrics.notification_traitee(*outcome)

    async def lot(self, bilan: BilanEnvoi) -> int:
        """One batch (one tick): e-mails, and at most the gateway's rate of SMS, oldest first."""
        duree = timedelta(seconds=self.settings.notification_bail_seconds)
        now = utcnow()
        async with self.sessionmaker() as session:
            rows = await reclamer(session, self.settings, now, duree)
            await session.commit()
        bail = _Bail(now + duree, time.monotonic())
        self.sms_du_lot = sum(1 for row in rows if row.canal == Canal.SMS.value)
        for i, row in enumerate(rows):
            error: DeliveryError | None = None
            reference = None
            if row.canal == Canal.SMS.value:
                await self._creneau_sms()
            if not await self._tient_bail(bail, [r.id for r in rows[i:]], duree):
                continue
            try:
                reference = await self.transports[row.canal].send(row)
            except DeliveryError as exc:
                error = exc
            if row.canal == Canal.SMS.value:
                # Once the gateway has answered: the SMS reached it before this instant, whatever the latency.
                self.envois_sms.append(time.monotonic())
            await self._record(row.id, row.tentatives + 1, error, bilan, reference)
        return len(rows)

    async def _tient_bail(self, bail: _Bail, restants: list[uuid.UUID], duree: timedelta) -> bool:
        """Whether this worker still holds the lease of ``restants[0]``. Once half the lease has passed (slow
        SMTP, a loaded host, the gateway's rate), the rest of the batch's lease is extended by compare-and-set
        before the next send: a row another worker leased meanwhile is left to it instead of being sent twice
        (the engine comparison saw 19 doubles on a loaded machine with a 3 s lease)."""
        if time.monotonic() - bail.depuis < duree.total_seconds() / 2:
            return restants[0] not in bail.perdus
        nouveau = utcnow() + duree
        async with self.sessionmaker() as session:
            gardes = await NotificationSystemRepository(session).prolonger_bail(restants, bail.jusqua, nouveau)
            await session.commit()
        bail.perdus.update(set(restants) - gardes)
        bail.jusqua, bail.depuis = nouveau, time.monotonic()
        return restants[0] in gardes

    async def _creneau_sms(self) -> None:
        """Never more than the rate within any second, not only within a batch: a batch whose claim was slow sends
        at the end of its second, the next one at the start of the following second (the SMS bench saw twice the
        rate within one sliding second)."""
        if len(self.envois_sms) == self.envois_sms.maxlen:
            attente = self.envois_sms[0] + 1.0 - time.monotonic()
            if attente > 0:
                await self.pause(attente)

    async def _lot_cadence(self, bilan: BilanEnvoi) -> int:
        """A batch, then, when it took a full second's worth of SMS (more may wait), the rest of that second:
        the gateway never gets more than its rate, and e-mails keep flowing in the same batches."""
        debut = time.monotonic()
        handled = await self.lot(bilan)
        if self.sms_du_lot >= self.settings.sms_messages_par_seconde:
            await self.pause(max(0.0, 1.0 - (time.monotonic() - debut)))
        return handled

    async def run(self, max_lots: int | None = None, avancement: Callable[[int], object] | None = None) -> BilanEnvoi:
        """``avancement`` receives the number of rows handled by each batch."""
        token = sqlite_write_intent.set(True)
        try:
            bilan = BilanEnvoi()
            lots = 0
            while (max_lots is None or lots < max_lots) and (handled := await self._lot_cadence(bilan)):
                lots += 1
                if avancement is not None:
                    avancement(handled)
            if bilan.traitees:
                async with self.sessionmaker() as session:
                    await audit.record(session, None, action="ENVOYER_NOTIFICATIONS", module="NOTIFICATIONS",
                                       entite_type="Notification",
                                       description=f"{bilan.envoyees} envoyée(s), {bilan.reportees} reportée(s), "
                                                   f"{bilan.echouees} échouée(s)",
                                       after={"envoyees": bilan.envoyees, "reportees": bilan.reportees,
                                              "echouees": bilan.echouees})
                    await session.commit()
            return bilan
        finally:
            sqlite_write_intent.reset(token)


async def envoyer_notifications(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings,
                                max_lots: int | None = None, avancement: Callable[[int], object] | None = None
                                ) -> BilanEnvoi:
    return await LivreurNotifications(sessionmaker, settings).run(max_lots, avancement)
