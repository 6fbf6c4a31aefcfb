"""The members' credit (avoir): its ledger (table ``mouvement_avoir``, owned by encaissement) and the locks an
application takes — the payments holding the credit, then the dues it pays, in the settlement workflow's order
(payment before dues, as ``EncaissementService.reverser`` does)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import Cotisation, MouvementAvoir, Paiement, PaiementAllocation
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir

ZERO = Decimal("0")


class MouvementAvoirRepository(SystemRepository[MouvementAvoir]):
    """Used after the caller was checked (the member and organisation were read through scoped doors and the
    permission asked), or by the settlement workflow on a payment it already holds."""

    model = MouvementAvoir

    async def solde(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> Decimal:
        stmt = select(func.coalesce(func.sum(MouvementAvoir.montant), 0)).where(
            MouvementAvoir.membre_id == membre_id, MouvementAvoir.organisation_id == organisation_id)
        return Decimal((await self.session.execute(stmt)).scalar_one())

    async def soldes(self, organisation_id: uuid.UUID) -> list[tuple[uuid.UUID, Decimal]]:
        """Every member's credit balance in the organisation, when not zero: the credit ledger's lines."""
        total = func.sum(MouvementAvoir.montant)
        stmt = (select(MouvementAvoir.membre_id, total).where(MouvementAvoir.organisation_id == organisation_id)
                .group_by(MouvementAvoir.membre_id).having(total != 0))
        return [(row[0], Decimal(row[1])) for row in await self.session.execute(stmt)]

    async def soldes_au(self, organisation_id: uuid.UUID, avant: datetime) -> list[tuple[uuid.UUID, Decimal]]:
        """Every member's credit balance from the movements recorded before ``avant``, when not zero (the
        inventory of a year end)."""
        total = func.sum(MouvementAvoir.montant)
        stmt = (select(MouvementAvoir.membre_id, total).where(MouvementAvoir.organisation_id == organisation_id,
                                                              MouvementAvoir.created_at < avant)
                .group_by(MouvementAvoir.membre_id).having(total != 0))
        return [(row[0], Decimal(row[1])) for row in await self.session.execute(stmt)]

    async def du_paiement(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[MouvementAvoir]]:
        """The movements each payment's receipt refers to, oldest first."""
        found: dict[uuid.UUID, list[MouvementAvoir]] = {i: [] for i in paiement_ids}
        if not paiement_ids:
            return found
        rows = await self.session.execute(select(MouvementAvoir).where(MouvementAvoir.paiement_id.in_(paiement_ids))
                                          .order_by(MouvementAvoir.created_at, MouvementAvoir.id))
        for row in rows.scalars():
            found[row.paiement_id].append(row)
        return found

    async def utilise(self, paiement_id: uuid.UUID) -> Decimal:
        """What of this payment's credit was applied to dues or paid back (a positive amount)."""
        stmt = select(func.coalesce(func.sum(MouvementAvoir.montant), 0)).where(
            MouvementAvoir.paiement_id == paiement_id,
            MouvementAvoir.type_mouvement.in_((TypeMouvementAvoir.IMPUTATION, TypeMouvementAvoir.REMBOURSEMENT)))
        return ZERO - Decimal((await self.session.execute(stmt)).scalar_one())

    async def lock_credits(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> list[Paiement]:
        """The member's valid payments holding credit, oldest money first, locked: the balance checked on them
        holds until commit (a second application or a refund waits)."""
        stmt = (select(Paiement).where(
            Paiement.membre_id == membre_id, Paiement.organisation_id == organisation_id,
            Paiement.statut == StatutPaiement.VALIDE, Paiement.montant_non_affecte > 0)
            .order_by(Paiement.date_paiement, Paiement.numero_recu).with_for_update()
            .execution_options(populate_existing=True))
        return list((await self.session.execute(stmt)).scalars())

    async def titulaires(self, organisation_id: uuid.UUID | None) -> list[tuple[uuid.UUID, uuid.UUID]]:
        """(member, organisation) of every credit held now, of one organisation or all."""
        stmt = (select(Paiement.membre_id, Paiement.organisation_id).distinct()
                .where(Paiement.statut == StatutPaiement.VALIDE, Paiement.montant_non_affecte > 0))
        if organisation_id is not None:
            stmt = stmt.where(Paiement.organisation_id == organisation_id)
        return [(row[0], row[1]) for row in await self.session.execute(stmt)]

    async def lock_dues_ouvertes(self, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                                 echues_au: date | None = None) -> list[Cotisation]:
        """The member's dues still owing, oldest due date first (then reference), locked; dues reserved by a
        pending payment (a Wave checkout, a declaration) are left to it: never both paid. A one-door exception
        like ``lock_cibles``: the order of these locks is the payment's."""
        reserved = (select(PaiementAllocation.cotisation_id)
                    .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
                    .where(Paiement.membre_id == membre_id, Paiement.statut == StatutPaiement.EN_ATTENTE,
                           PaiementAllocation.cotisation_id.is_not(None)))
        stmt = (select(Cotisation).where(
            Cotisation.membre_id == membre_id, Cotisation.organisation_id == organisation_id,
            Cotisation.statut.not_in((StatutCotisation.ANNULEE, StatutCotisation.PAYEE)),
            Cotisation.montant_du > Cotisation.montant_paye, Cotisation.id.not_in(reserved),
            *([Cotisation.date_echeance <= echues_au] if echues_au is not None else []))
            .order_by(Cotisation.date_echeance, Cotisation.numero_reference).with_for_update()
            .execution_options(populate_existing=True))
        return list((await self.session.execute(stmt)).scalars())

    async def of_membre(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> list[MouvementAvoir]:
        stmt = (select(MouvementAvoir).where(MouvementAvoir.membre_id == membre_id,
                                             MouvementAvoir.organisation_id == organisation_id)
                .order_by(MouvementAvoir.created_at, MouvementAvoir.id))
        return list((await self.session.execute(stmt)).scalars())
