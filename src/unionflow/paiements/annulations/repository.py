"""The one door of ``demande_annulation`` (requests to undo money, paiements/annulations/service.py). Kept with the
payment rows' door so that receipts (paiements) read a cancellation's who and why without importing the workflow
above."""

from __future__ import annotations

import uuid

from sqlalchemy import or_, select

from unionflow.core.repository import ScopedRepository, SystemRepository
from unionflow.models import DemandeAnnulation
from unionflow.models.annulation import StatutDemandeAnnulation


class DemandeAnnulationRepository(ScopedRepository[DemandeAnnulation]):
    """Staff of the organisation (and global roles) see its requests; a member never (he is notified instead)."""

    model = DemandeAnnulation

    async def lister(self, organisation_id: uuid.UUID | None, statut: str | None) -> list[DemandeAnnulation]:
        stmt = self.select()
        if organisation_id is not None:
            stmt = stmt.where(DemandeAnnulation.organisation_id == organisation_id)
        if statut is not None:
            stmt = stmt.where(DemandeAnnulation.statut == statut)
        stmt = stmt.order_by(DemandeAnnulation.date_demande.desc(), DemandeAnnulation.id).limit(500)
        return list((await self.session.execute(stmt)).scalars().all())


class DemandeAnnulationSystemRepository(SystemRepository[DemandeAnnulation]):
    """After the object was loaded through its scoped repository: its requests, and the approved one a receipt
    shows."""

    model = DemandeAnnulation

    async def en_attente(self, *, paiement_id: uuid.UUID | None = None, versement_id: uuid.UUID | None = None,
                         ecriture_id: uuid.UUID | None = None) -> DemandeAnnulation | None:
        # Only the ids given: ``column == None`` would read as IS NULL and match every other kind of request.
        objets = [column == value for column, value in ((DemandeAnnulation.paiement_id, paiement_id),
                                                        (DemandeAnnulation.versement_id, versement_id),
                                                        (DemandeAnnulation.ecriture_id, ecriture_id))
                  if value is not None]
        stmt = self.select().where(DemandeAnnulation.statut == StatutDemandeAnnulation.EN_ATTENTE.value, or_(*objets))
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none()

    async def approuvee_du_paiement(self, paiement_id: uuid.UUID) -> DemandeAnnulation | None:
        stmt = self.select().where(DemandeAnnulation.paiement_id == paiement_id,
                                   DemandeAnnulation.statut == StatutDemandeAnnulation.APPROUVEE.value)
        return (await self.session.execute(stmt.limit(1))).scalar_one_or_none()

    async def contrepassee(self, ecriture_id: uuid.UUID) -> bool:
        stmt = select(DemandeAnnulation.id).where(
            DemandeAnnulation.ecriture_id == ecriture_id,
            DemandeAnnulation.statut == StatutDemandeAnnulation.APPROUVEE.value)
        return (await self.session.execute(stmt.limit(1))).first() is not None
