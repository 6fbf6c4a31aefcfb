from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import or_, select

from unionflow.core.outbox import libre, louer
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import AbonnementWebhook, LivraisonWebhook
from unionflow.models.integration import StatutLivraison


class AbonnementWebhookRepository(ScopedRepository[AbonnementWebhook]):
    """Subscriptions and deliveries are organisation records: global roles see all, an organisation's staff
    its own (the route's role set keeps them to administrators)."""

    model = AbonnementWebhook

    async def abonnements(self, organisation_id: uuid.UUID | None,
                          params: PageParams) -> tuple[list[AbonnementWebhook], int, bool]:
        stmt = self.select()
        if organisation_id is not None:
            stmt = stmt.where(AbonnementWebhook.organisation_id == organisation_id)
        stmt = stmt.order_by(AbonnementWebhook.created_at.desc(), AbonnementWebhook.id)
        return await self.paginate(stmt, params)

    async def livraison(self, id: uuid.UUID) -> LivraisonWebhook | None:
        stmt = select(LivraisonWebhook).where(LivraisonWebhook.id == id,
                                              self.in_scope(LivraisonWebhook.organisation_id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def livraisons(self, abonnement_id: uuid.UUID, statut: str | None,
                         params: PageParams) -> tuple[list[LivraisonWebhook], int, bool]:
        stmt = select(LivraisonWebhook).where(LivraisonWebhook.abonnement_id == abonnement_id,
                                              self.in_scope(LivraisonWebhook.organisation_id))
        if statut:
            stmt = stmt.where(LivraisonWebhook.statut == statut)
        stmt = stmt.order_by(LivraisonWebhook.created_at.desc(), LivraisonWebhook.id)
        return await self.paginate(stmt, params)

    async def delete(self, row: AbonnementWebhook) -> None:
        await self.session.delete(row)


class LivraisonWebhookSystemRepository(SystemRepository[LivraisonWebhook]):
    """The delivery outbox as the emitting services and the delivery job see it (webhooks/emission.py,
    webhooks/delivery.py): every organisation's rows, on the system's behalf."""

    model = LivraisonWebhook

    async def active_subscriptions(self, organisation_id: uuid.UUID) -> list[tuple[uuid.UUID, list[str] | None]]:
        """(id, events) of the organisation's active subscriptions."""
        rows = (await self.session.execute(
            select(AbonnementWebhook.id, AbonnementWebhook.evenements)
            .where(AbonnementWebhook.organisation_id == organisation_id, AbonnementWebhook.actif.is_(True))
        )).all()
        return [(r.id, r.evenements) for r in rows]

    async def lease_due(self, limit: int, now: datetime,
                        bail: timedelta) -> list[tuple[LivraisonWebhook, str, str]]:
        """Lease due deliveries of active subscriptions until ``now + bail``, oldest first: (row, url, secret).
        The caller commits."""
        due = (select(LivraisonWebhook.id)
               .join(AbonnementWebhook, AbonnementWebhook.id == LivraisonWebhook.abonnement_id)
               .where(LivraisonWebhook.statut == StatutLivraison.EN_ATTENTE, AbonnementWebhook.actif.is_(True),
                      or_(LivraisonWebhook.prochaine_tentative.is_(None), LivraisonWebhook.prochaine_tentative <= now),
                      libre(LivraisonWebhook.verrouillee_jusqua, now))
               .order_by(LivraisonWebhook.created_at, LivraisonWebhook.id).limit(limit))
        ids = await louer(self.session, due, LivraisonWebhook.verrouillee_jusqua, now, bail,
                          lock_of=LivraisonWebhook)
        if not ids:
            return []
        rows = await self.session.execute(
            select(LivraisonWebhook, AbonnementWebhook.url, AbonnementWebhook.secret)
            .join(AbonnementWebhook, AbonnementWebhook.id == LivraisonWebhook.abonnement_id)
            .where(LivraisonWebhook.id.in_(ids)).order_by(LivraisonWebhook.created_at, LivraisonWebhook.id)
            .execution_options(populate_existing=True))
        return [(row, url, secret) for row, url, secret in rows.tuples()]

    async def lock_with_abonnement(self, livraison_id: uuid.UUID) -> tuple[LivraisonWebhook, AbonnementWebhook]:
        """The delivery and its subscription, locked (in that order) and read afresh, to record an attempt."""
        row = (await self.session.execute(select(LivraisonWebhook).where(LivraisonWebhook.id == livraison_id)
                                          .with_for_update().execution_options(populate_existing=True))).scalar_one()
        abonnement = (await self.session.execute(
            select(AbonnementWebhook).where(AbonnementWebhook.id == row.abonnement_id).with_for_update()
            .execution_options(populate_existing=True))).scalar_one()
        return row, abonnement
