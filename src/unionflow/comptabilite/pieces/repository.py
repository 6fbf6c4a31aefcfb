"""The payments behind a statement's entries: receipt, method, payer and what each paid.

A cross-area read (LECTURES_CROISEES): encaissement posts its entries through comptabilite, so comptabilite
importing the payments' repository back would be a cycle between areas. Callers have already checked that the
organisation's entries are visible to them; every read is restricted to that organisation's payments."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from unionflow.core.repository import SystemRepository
from unionflow.models import Cotisation, Membre, Paiement, PaiementAllocation


class PiecesRepository(SystemRepository[Paiement]):
    model = Paiement

    async def payeurs(self, organisation_id: uuid.UUID, paiement_ids: list[uuid.UUID]
                      ) -> dict[uuid.UUID, tuple[str, str, str]]:
        """Per payment: receipt number, method code, the member's full name."""
        stmt = (select(Paiement.id, Paiement.numero_recu, Paiement.methode, Membre.prenom, Membre.nom)
                .join(Membre, Membre.id == Paiement.membre_id)
                .where(Paiement.organisation_id == organisation_id, Paiement.id.in_(paiement_ids)))
        return {r[0]: (r[1], str(r[2]), f"{r[3]} {r[4]}".strip()) for r in (await self.session.execute(stmt)).all()}

    async def allocations(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[tuple[Any, ...]]]:
        """Per payment, in allocation order: (cotisation_id, adhesion_id, annee, mois) of what it paid."""
        stmt = (select(PaiementAllocation.paiement_id, PaiementAllocation.cotisation_id,
                       PaiementAllocation.adhesion_id, Cotisation.annee, Cotisation.mois)
                .outerjoin(Cotisation, Cotisation.id == PaiementAllocation.cotisation_id)
                .where(PaiementAllocation.paiement_id.in_(paiement_ids))
                .order_by(PaiementAllocation.paiement_id, Cotisation.annee, Cotisation.mois, PaiementAllocation.id))
        result: dict[uuid.UUID, list[tuple[Any, ...]]] = {}
        for row in (await self.session.execute(stmt)).all():
            result.setdefault(row[0], []).append(tuple(row[1:]))
        return result
