from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, or_, select, update

from unionflow.core.auth import AuthContext
from unionflow.core.outbox import libre, louer
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import (
    ModeleNotification,
    Notification,
    NotificationEvenement,
    RappelCotisation,
)
from unionflow.models.base import utcnow
from unionflow.models.notification import Canal, StatutNotification
from unionflow.models.rappel_cotisation import StatutRappel


@dataclass(frozen=True)
class NotificationFilters:
    statut: str | None = None
    canal: str | None = None
    type_notification: str | None = None
    membre_id: uuid.UUID | None = None
    organisation_id: uuid.UUID | None = None


class NotificationRepository(ScopedRepository[Notification]):
    """Staff see their organisations' outbox; everyone sees their own notifications. Account e-mails (no member:
    password-reset links) are nobody's outbox, not even a global role's."""

    model = Notification
    personal = True
    auth: AuthContext

    def _staff_scope(self) -> ColumnElement[bool]:
        if self.auth.is_global:
            # Account e-mails (no member: password-reset links) carry a secret: they are nobody's outbox.
            return Notification.membre_id.is_not(None)
        return self.in_scope(Notification.organisation_id)

    def scope(self) -> ColumnElement[bool]:
        own = Notification.membre_id == self.auth.membre_id if self.auth.membre_id else false()
        return or_(self._staff_scope(), own)

    async def get_staff(self, notification_id: uuid.UUID, *, for_update: bool = False) -> Notification | None:
        stmt = select(Notification).where(Notification.id == notification_id, self._staff_scope())
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def get_own(self, notification_id: uuid.UUID) -> Notification | None:
        if self.auth.membre_id is None:
            return None
        stmt = (select(Notification)
                .where(Notification.id == notification_id, Notification.membre_id == self.auth.membre_id)
                .with_for_update())
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def search(self, filters: NotificationFilters, params: PageParams) -> tuple[list[Notification], int, bool]:
        stmt: Select[Any] = select(Notification).where(self._staff_scope())
        for column, value in ((Notification.statut, filters.statut), (Notification.canal, filters.canal),
                              (Notification.type_notification, filters.type_notification),
                              (Notification.membre_id, filters.membre_id),
                              (Notification.organisation_id, filters.organisation_id)):
            if value is not None:
                stmt = stmt.where(column == value)
        return await self.paginate(stmt.order_by(Notification.created_at.desc(), Notification.id), params)

    async def mine(self, membre_id: uuid.UUID, params: PageParams,
                   non_lues: bool) -> tuple[list[Notification], int, bool]:
        stmt = select(Notification).where(Notification.membre_id == membre_id)
        if non_lues:
            stmt = stmt.where(Notification.date_lecture.is_(None))
        return await self.paginate(stmt.order_by(Notification.created_at.desc(), Notification.id), params)

    async def unread(self, membre_id: uuid.UUID) -> int:
        stmt = select(func.count()).select_from(Notification).where(
            Notification.membre_id == membre_id, Notification.date_lecture.is_(None))
        return int((await self.session.execute(stmt)).scalar_one())

    async def mark_all_read(self, membre_id: uuid.UUID) -> int:
        now = utcnow()
        return await self.lignes_touchees(
            update(Notification).where(Notification.membre_id == membre_id, Notification.date_lecture.is_(None))
            .values(statut="LUE", date_lecture=now, updated_at=now).execution_options(synchronize_session=False))


class ModeleRepository(ScopedRepository[ModeleNotification]):
    model = ModeleNotification

    def scope(self) -> ColumnElement[bool]:
        """Global templates are readable by every template manager; organisation ones by their staff."""
        return or_(ModeleNotification.organisation_id.is_(None), self.in_scope(ModeleNotification.organisation_id))

    async def search(self, code: str | None, organisation_id: uuid.UUID | None,
                     params: PageParams) -> tuple[list[ModeleNotification], int, bool]:
        stmt = self.select()
        if code:
            stmt = stmt.where(ModeleNotification.code == code)
        if organisation_id:
            stmt = stmt.where(ModeleNotification.organisation_id == organisation_id)
        order = (ModeleNotification.code, ModeleNotification.canal, ModeleNotification.portee)
        return await self.paginate(stmt.order_by(*order), params)

    async def exists(self, code: str, canal: str, portee: str) -> bool:
        stmt = select(ModeleNotification.id).where(ModeleNotification.code == code, ModeleNotification.canal == canal,
                                                   ModeleNotification.portee == portee)
        return (await self.session.execute(stmt)).scalar_one_or_none() is not None

    async def for_sending(self, code: str, organisation_id: uuid.UUID) -> list[ModeleNotification]:
        """Active templates of that code usable for the organisation: its own first, then global ones."""
        stmt = select(ModeleNotification).where(
            ModeleNotification.code == code, ModeleNotification.actif.is_(True),
            or_(ModeleNotification.organisation_id == organisation_id, ModeleNotification.organisation_id.is_(None)))
        rows = list((await self.session.execute(stmt)).scalars())
        return sorted(rows, key=lambda m: m.organisation_id is None)

    async def delete(self, modele: ModeleNotification) -> None:
        await self.session.delete(modele)


class NotificationSystemRepository(SystemRepository[Notification]):
    """The outbox as the delivery worker sees it (notifications/delivery.py), and the mirror of each outcome onto
    the record that asked for it (notifications/sources.py). The reminder and event-notice rows are updated here
    rather than through cotisations' and evenements' repositories: both areas emit notifications, so importing
    them back would be a cycle between areas."""

    model = Notification

    @staticmethod
    def _due(now: datetime, canaux: tuple[str, ...] = (Canal.EMAIL.value, Canal.SMS.value)
             ) -> tuple[ColumnElement[bool], ...]:
        return (Notification.statut == StatutNotification.EN_ATTENTE.value,
                Notification.canal.in_(canaux),
                or_(Notification.prochaine_tentative.is_(None), Notification.prochaine_tentative <= now),
                libre(Notification.verrouillee_jusqua, now))

    async def count_due(self, now: datetime) -> int:
        """E-mail and SMS rows waiting to be sent now, not leased by a worker."""
        stmt = select(func.count()).select_from(Notification).where(*self._due(now))
        return int((await self.session.execute(stmt)).scalar_one())

    async def lease_due(self, limit: int, now: datetime, bail: timedelta,
                        canaux: tuple[str, ...] = (Canal.EMAIL.value, Canal.SMS.value)) -> list[Notification]:
        """Lease up to ``limit`` due rows of ``canaux``, oldest first, until ``now + bail``. The caller commits."""
        if limit <= 0:
            return []
        ids = await louer(self.session, select(Notification.id).where(*self._due(now, canaux))
                          .order_by(Notification.created_at, Notification.id).limit(limit),
                          Notification.verrouillee_jusqua, now, bail)
        if not ids:
            return []
        rows = await self.session.execute(select(Notification).where(Notification.id.in_(ids))
                                          .order_by(Notification.created_at, Notification.id)
                                          .execution_options(populate_existing=True))
        return list(rows.scalars())

    async def prolonger_bail(self, ids: list[uuid.UUID], bail: datetime, nouveau: datetime) -> set[uuid.UUID]:
        """Extend to ``nouveau`` the lease of the rows of ``ids`` still leased until ``bail`` and still waiting:
        compare-and-set on the lease's value, so a row another worker leased after ours passed is not taken back.
        Returns the ids still held. The caller commits."""
        stmt = (update(Notification)
                .where(Notification.id.in_(ids), Notification.verrouillee_jusqua == bail,
                       Notification.statut == StatutNotification.EN_ATTENTE.value)
                .values(verrouillee_jusqua=nouveau).returning(Notification.id)
                .execution_options(synchronize_session=False))
        return set((await self.session.execute(stmt)).scalars())

    async def update_pending(self, notification_id: uuid.UUID, values: dict[str, object]) -> Notification | None:
        """Write a delivery outcome on a row still EN_ATTENTE (a row read meanwhile, LUE, keeps its status);
        returns the row as stored now."""
        pending = Notification.statut == StatutNotification.EN_ATTENTE.value
        await self.session.execute(update(Notification).where(Notification.id == notification_id, pending)
                                   .values(**values).execution_options(synchronize_session=False))
        return await self.session.get(Notification, notification_id, populate_existing=True)

    async def replace_corps(self, notification_id: uuid.UUID, corps: str) -> None:
        await self.session.execute(update(Notification).where(Notification.id == notification_id)
                                   .values(corps=corps))

    async def mark_rappel_envoye(self, rappel_id: uuid.UUID, date_envoi: datetime | None) -> None:
        await self.session.execute(update(RappelCotisation).where(RappelCotisation.id == rappel_id)
                                   .values(statut="ENVOYE", date_envoi=date_envoi))

    async def mark_rappel_echec(self, rappel_id: uuid.UUID) -> None:
        """ECHEC unless another channel of the reminder already got through (ENVOYE stays)."""
        await self.session.execute(update(RappelCotisation).where(RappelCotisation.id == rappel_id,
                                                                  RappelCotisation.statut != StatutRappel.ENVOYE)
                                   .values(statut="ECHEC"))

    async def mark_evenement_envoye(self, notification_evenement_id: uuid.UUID, date_envoi: datetime | None) -> None:
        """The first delivered channel dates the event notice; later ones leave it."""
        await self.session.execute(update(NotificationEvenement)
                                   .where(NotificationEvenement.id == notification_evenement_id,
                                          NotificationEvenement.date_envoi.is_(None))
                                   .values(date_envoi=date_envoi))

    async def effacer_corps_avant(self, limite: datetime, texte: str) -> int:
        """Retention (Loi 2008-12, donnees_membre/jobs.py): the address, subject and body of notifications
        created before ``limite`` and no longer waiting to be sent become ``texte``."""
        stmt = (update(Notification)
                .where(Notification.created_at < limite, Notification.corps != texte,
                       Notification.statut != StatutNotification.EN_ATTENTE.value)
                .values(corps=texte, sujet=texte, adresse=None))
        return await self.lignes_touchees(stmt)
