from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams, paginate
from unionflow.core.visibility import scope
from unionflow.models import AbonnementWebhook, LivraisonWebhook


class WebhookRepository:
    """Subscriptions and deliveries are organisation records: global roles see all, an organisation's staff
    its own (the route's role set keeps them to administrators)."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def abonnement(self, id: uuid.UUID, *, for_update: bool = False) -> AbonnementWebhook | None:
        stmt = select(AbonnementWebhook).where(AbonnementWebhook.id == id,
                                               scope(self.auth, AbonnementWebhook.organisation_id))
        if for_update:
            stmt = stmt.with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def abonnements(self, organisation_id: uuid.UUID | None,
                          params: PageParams) -> tuple[list[AbonnementWebhook], int, bool]:
        stmt = select(AbonnementWebhook).where(scope(self.auth, AbonnementWebhook.organisation_id))
        if organisation_id is not None:
            stmt = stmt.where(AbonnementWebhook.organisation_id == organisation_id)
        stmt = stmt.order_by(AbonnementWebhook.created_at.desc(), AbonnementWebhook.id)
        return await paginate(self.session, stmt, params)

    async def livraison(self, id: uuid.UUID) -> LivraisonWebhook | None:
        stmt = select(LivraisonWebhook).where(LivraisonWebhook.id == id,
                                              scope(self.auth, LivraisonWebhook.organisation_id))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def livraisons(self, abonnement_id: uuid.UUID, statut: str | None,
                         params: PageParams) -> tuple[list[LivraisonWebhook], int, bool]:
        stmt = select(LivraisonWebhook).where(LivraisonWebhook.abonnement_id == abonnement_id,
                                              scope(self.auth, LivraisonWebhook.organisation_id))
        if statut:
            stmt = stmt.where(LivraisonWebhook.statut == statut)
        stmt = stmt.order_by(LivraisonWebhook.created_at.desc(), LivraisonWebhook.id)
        return await paginate(self.session, stmt, params)

    def add(self, row: AbonnementWebhook | LivraisonWebhook) -> None:
        self.session.add(row)

    async def delete(self, row: AbonnementWebhook) -> None:
        await self.session.delete(row)
