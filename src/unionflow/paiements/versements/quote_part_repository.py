"""Quote-parts between organisations: what consolidation eliminates."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from sqlalchemy import select

from unionflow.core.pagination import PageParams
from unionflow.core.repository import SystemRepository
from unionflow.models import Versement
from unionflow.models.versement import ObjetVersement, StatutVersement


class QuotePartRepository(SystemRepository[Versement]):
    """Unscoped: read by the federation's consolidation after its service checked the caller reads the root."""

    model = Versement

    async def internes(self, perimetre: Collection[uuid.UUID]) -> list[str]:
        """Numbers of the quote-parts paid AND received inside ``perimetre`` that were delivered (still so, or
        cancelled after delivery: their reversal is eliminated with them)."""
        if not perimetre:
            return []
        ids = list(perimetre)
        stmt = (select(Versement.numero)
                .where(Versement.objet_type == ObjetVersement.QUOTE_PART, Versement.organisation_id.in_(ids),
                       Versement.organisation_destinataire_id.in_(ids),
                       Versement.statut.in_((StatutVersement.REUSSI, StatutVersement.ANNULE)))
                .order_by(Versement.numero))
        return [str(n) for n in (await self.session.execute(stmt)).scalars()]

    async def recues(self, destinataire_id: uuid.UUID, params: PageParams) -> tuple[list[Versement], int, bool]:
        """Quote-parts paid to ``destinataire_id`` (every status: pending ones announce money to come), newest
        first."""
        stmt = (select(Versement).where(Versement.objet_type == ObjetVersement.QUOTE_PART,
                                        Versement.organisation_destinataire_id == destinataire_id)
                .order_by(Versement.created_at.desc(), Versement.id))
        return await self.paginate(stmt, params)
