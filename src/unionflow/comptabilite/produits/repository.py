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

    async def choix_organisations(self, organisation_ids: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, str]]:
        """``choix`` of several organisations in one query (every one of them in the answer)."""
        rows = await self.session.execute(
            select(CompteProduit.organisation_id, CompteProduit.nature, CompteProduit.numero_compte)
            .where(CompteProduit.organisation_id.in_(organisation_ids)))
        result: dict[uuid.UUID, dict[str, str]] = {org: {} for org in organisation_ids}
        for org, nature, numero in rows.all():
            result[org][nature] = numero
        return result

    async def de(self, organisation_id: uuid.UUID, nature: str) -> CompteProduit | None:
        stmt = select(CompteProduit).where(CompteProduit.organisation_id == organisation_id,
                                           CompteProduit.nature == nature).with_for_update()
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def supprimer(self, row: CompteProduit) -> None:
        await self.session.delete(row)
        await self.session.flush()
