from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import CompteWave, TransactionWave, WaveCheckout
from unionflow.models.wave import StatutCompteWave


class CompteWaveRepository(ScopedRepository[CompteWave]):
    """Wave accounts and their transactions: organisation records, seen by global roles and the
    organisation's staff (the default scope; accounts have no member)."""

    model = CompteWave

    async def comptes(self, organisation_id: uuid.UUID | None) -> list[CompteWave]:
        stmt = self.select()
        if organisation_id:
            stmt = stmt.where(CompteWave.organisation_id == organisation_id)
        return list((await self.session.execute(stmt.order_by(CompteWave.created_at, CompteWave.id))).scalars())

    async def transactions(self, params: PageParams, organisation_id: uuid.UUID | None, type_transaction: str | None,
                           paiement_id: uuid.UUID | None) -> tuple[list[TransactionWave], int, bool]:
        stmt = select(TransactionWave).where(self.in_scope(TransactionWave.organisation_id))
        if organisation_id:
            stmt = stmt.where(TransactionWave.organisation_id == organisation_id)
        if type_transaction:
            stmt = stmt.where(TransactionWave.type_transaction == type_transaction)
        if paiement_id:
            stmt = stmt.where(TransactionWave.paiement_id == paiement_id)
        return await self.paginate(stmt.order_by(TransactionWave.created_at.desc(), TransactionWave.id), params)


class CompteWaveSystemRepository(SystemRepository[CompteWave]):
    """Which credentials talk to Wave: read on the system's behalf (a webhook has no caller; a checkout or payout
    was permitted first), and never returned to a caller."""

    model = CompteWave

    async def compte_actif(self, organisation_id: uuid.UUID) -> CompteWave | None:
        """The organisation's oldest active account that has an API key."""
        return (await self.session.execute(
            self.select().where(CompteWave.organisation_id == organisation_id,
                                CompteWave.statut == StatutCompteWave.ACTIF, CompteWave.cle_api.is_not(None))
            .order_by(CompteWave.created_at, CompteWave.id).limit(1))).scalar_one_or_none()

    async def secrets_webhook(self) -> list[str]:
        rows = await self.session.execute(select(CompteWave.secret_webhook).where(
            CompteWave.statut == StatutCompteWave.ACTIF, CompteWave.secret_webhook.is_not(None)))
        return [s for s in rows.scalars() if s]


class WaveCheckoutRepository(SystemRepository[WaveCheckout]):
    """Wave sessions of payments. Unscoped: read after the payment itself was loaded through the scoped
    ``PaiementRepository`` (or by the signed webhook, which has no caller)."""

    model = WaveCheckout

    async def by_paiements(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, WaveCheckout]:
        if not paiement_ids:
            return {}
        rows = await self.session.execute(self.select().where(WaveCheckout.paiement_id.in_(paiement_ids)))
        return {c.paiement_id: c for c in rows.scalars()}

    async def lock_by_paiement(self, paiement_id: uuid.UUID) -> WaveCheckout | None:
        return (await self.session.execute(self.select().where(WaveCheckout.paiement_id == paiement_id)
                                           .with_for_update())).scalar_one_or_none()

    async def lock_by_checkout_id(self, checkout_id: str) -> WaveCheckout | None:
        return (await self.session.execute(self.select().where(WaveCheckout.checkout_id == checkout_id)
                                           .with_for_update())).scalar_one_or_none()

    async def ouverte_par_reference(self, reference_client: str, apres: datetime) -> WaveCheckout | None:
        """The session opened for this client reference that is still open and not past ``apres``, locked."""
        stmt = (self.select().where(WaveCheckout.reference_client == reference_client,
                                    WaveCheckout.checkout_status == "open",
                                    WaveCheckout.payment_status != "succeeded",
                                    WaveCheckout.when_expires > apres)
                .order_by(WaveCheckout.created_at.desc()).limit(1).with_for_update())
        return (await self.session.execute(stmt)).scalar_one_or_none()
