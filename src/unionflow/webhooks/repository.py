from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.models import AbonnementWebhook, LivraisonWebhook


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
