from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Membre, Organisation, Paiement


async def paiement_valide(db: AsyncSession, membre: Membre, org: Organisation, montant: str,
                          methode: str = "WAVE", date_paiement: datetime | None = None) -> Paiement:
    """A validated payment row, written directly so that the detection rules are exercised on their own
    (the settlement workflow screens its payments itself: see test_workflow_screens_payments)."""
    paiement = Paiement(numero_recu=f"REC-T-{uuid.uuid4().hex[:10]}", membre_id=membre.id, organisation_id=org.id,
                        montant=Decimal(montant), devise="XOF", methode=methode, statut="VALIDE",
                        date_paiement=date_paiement or datetime.now(UTC))
    db.add(paiement)
    await db.flush()
    return paiement
