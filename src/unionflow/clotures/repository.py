"""Monthly closings and the balance check of a month's entries.

Unscoped (``SystemRepository``): the closing workflow reads and writes them after ``ClotureService`` loaded the
organisation through its scoped repository and asked the permission."""

from __future__ import annotations

import uuid
from datetime import date

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import ClotureMensuelle, EcritureComptable, LigneEcriture


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

    async def ecritures_desequilibrees(self, organisation_id: uuid.UUID, debut: date, fin: date) -> list[str]:
        """Numbers of the month's entries whose debits and credits differ (posting refuses them; this reads what
        the database holds, whatever wrote it)."""
        stmt = (select(EcritureComptable.numero_piece)
                .join(LigneEcriture, LigneEcriture.ecriture_id == EcritureComptable.id)
                .where(EcritureComptable.organisation_id == organisation_id,
                       EcritureComptable.date_ecriture >= debut, EcritureComptable.date_ecriture <= fin)
                .group_by(EcritureComptable.id, EcritureComptable.numero_piece)
                .having(func.sum(LigneEcriture.debit) != func.sum(LigneEcriture.credit))
                .order_by(EcritureComptable.numero_piece))
        return [str(n) for n in (await self.session.execute(stmt)).scalars()]
