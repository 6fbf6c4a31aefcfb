"""Queries on ``compte_produit``: an organisation's income account per kind of income."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import CompteProduit


class CompteProduitRepository(SystemRepository[CompteProduit]):
    """Unscoped: read by the payment path (already permitted) and by the service after its visibility check."""

    model = CompteProduit

    async def choix(self, organisation_id: uuid.UUID) -> dict[str, str]:
        """Kind → account number, for the kinds the organisation chose (the others keep their default)."""
        rows = await self.session.execute(select(CompteProduit.nature, CompteProduit.numero_compte)
                                          .where(CompteProduit.organisation_id == organisation_id))
        return {nature: numero for nature, numero in rows.all()}

    async def de(self, organisation_id: uuid.UUID, nature: str) -> CompteProduit | None:
        stmt = select(CompteProduit).where(CompteProduit.organisation_id == organisation_id,
                                           CompteProduit.nature == nature).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def supprimer(self, row: CompteProduit) -> None:
        await self.session.delete(row)
        await self.session.flush()
