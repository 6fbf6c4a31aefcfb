"""Reads behind receipts: what is still owed after a payment, the organisation's logo, and the unscoped lookup
of the public verification route (which proves possession of the receipt with its key instead)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy import and_, func, or_, select

from unionflow.core.repository import SystemRepository
from unionflow.models import Adhesion, Cotisation, Document, Organisation, Paiement, PaiementAllocation
from unionflow.models.paiement import StatutPaiement

LOGO_TYPES = ("image/png", "image/jpeg")


class RecuRepository(SystemRepository[Paiement]):
    """Unscoped: the receipt's payment was loaded through the scoped ``PaiementRepository`` first, and the public
    verification proves possession of the receipt with its key."""

    model = Paiement

    async def reste_apres(self, paiement: Paiement) -> dict[uuid.UUID, Decimal]:
        """Per dues item or adhesion this payment paid: amount owed minus every validated payment up to and
        including this one (in receipt order), so a reprint shows what was owed when the receipt was issued."""
        own = (select(PaiementAllocation.cotisation_id, PaiementAllocation.adhesion_id)
               .where(PaiementAllocation.paiement_id == paiement.id))
        targets = (await self.session.execute(own)).all()
        cotisations = [c for c, _ in targets if c is not None]
        adhesions = [a for _, a in targets if a is not None]
        if not targets:
            return {}
        when = paiement.date_paiement or paiement.created_at
        earlier = or_(Paiement.id == paiement.id, and_(
            Paiement.statut == StatutPaiement.VALIDE,
            or_(Paiement.date_paiement < when,
                and_(Paiement.date_paiement == when, Paiement.numero_recu <= paiement.numero_recu))))
        target = func.coalesce(PaiementAllocation.cotisation_id, PaiementAllocation.adhesion_id)
        paid_stmt = (select(target, func.sum(PaiementAllocation.montant))
                     .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
                     .where(or_(PaiementAllocation.cotisation_id.in_(cotisations),
                                PaiementAllocation.adhesion_id.in_(adhesions)), earlier)
                     .group_by(target))
        paid = {row[0]: Decimal(row[1]) for row in (await self.session.execute(paid_stmt)).all()}
        owed: dict[uuid.UUID, Decimal] = {}
        if cotisations:
            rows = await self.session.execute(select(Cotisation.id, Cotisation.montant_du)
                                              .where(Cotisation.id.in_(cotisations)))
            owed.update({i: Decimal(m) for i, m in rows.all()})
        if adhesions:
            rows = await self.session.execute(select(Adhesion.id, Adhesion.frais_adhesion)
                                              .where(Adhesion.id.in_(adhesions)))
            owed.update({i: Decimal(m) for i, m in rows.all()})
        return {i: max(m - paid.get(i, Decimal(0)), Decimal(0)) for i, m in owed.items()}

    async def logo(self, organisation: Organisation) -> Document | None:
        if organisation.logo_document_id is None:
            return None
        stmt = select(Document).where(Document.id == organisation.logo_document_id,
                                      Document.organisation_id == organisation.id,
                                      Document.type_mime.in_(LOGO_TYPES), Document.cle_stockage.is_not(None))
        return (await self.session.execute(stmt)).scalar_one_or_none()

    async def get_by_numero(self, numero: str) -> tuple[Paiement, str] | None:
        stmt = (select(Paiement, Organisation.nom).join(Organisation, Organisation.id == Paiement.organisation_id)
                .where(Paiement.numero_recu == numero))
        row = (await self.session.execute(stmt)).first()
        return (row[0], row[1]) if row else None
