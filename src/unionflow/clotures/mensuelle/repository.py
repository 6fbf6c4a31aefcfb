"""Monthly closings (the balance check of a month's entries is asked of comptabilite's ``EtatsRepository``).

Unscoped (``SystemRepository``): the closing workflow reads and writes them after ``ClotureService`` loaded the
organisation through its scoped repository and asked the permission."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import ClotureMensuelle


class ClotureMensuelleRepository(SystemRepository[ClotureMensuelle]):
    model = ClotureMensuelle

    async def du_mois(self, organisation_id: uuid.UUID, annee: int, mois: int) -> ClotureMensuelle | None:
        stmt = select(ClotureMensuelle).where(ClotureMensuelle.organisation_id == organisation_id,
                                              ClotureMensuelle.annee == annee, ClotureMensuelle.mois == mois)
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def de_l_organisation(self, organisation_id: uuid.UUID) -> list[ClotureMensuelle]:
        stmt = (select(ClotureMensuelle).where(ClotureMensuelle.organisation_id == organisation_id)
                .order_by(ClotureMensuelle.annee.desc(), ClotureMensuelle.mois.desc()))
        return list((await self.session.execute(stmt)).scalars())

    async def avec_demande_ecart(self, organisation_id: uuid.UUID) -> list[ClotureMensuelle]:
        """Closings whose cash difference went to a four-eyes request, oldest first."""
        stmt = (select(ClotureMensuelle).where(ClotureMensuelle.organisation_id == organisation_id,
                                               ClotureMensuelle.demande_ecart_id.is_not(None))
                .order_by(ClotureMensuelle.annee, ClotureMensuelle.mois))
        return list((await self.session.execute(stmt)).scalars())
