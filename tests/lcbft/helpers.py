from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from tests.comptabilite.helpers import cotisation
from unionflow.encaissement.service import Cible, EncaissementService
from unionflow.models import Membre, Organisation, Paiement


async def paiement_valide(db: AsyncSession, membre: Membre, org: Organisation, montant: str,
                          methode: str = "WAVE", date_paiement: datetime | None = None) -> Paiement:
    """A payment settled through the real settlement workflow (one dues of exactly that amount)."""
    cot = await cotisation(db, membre, org, montant)
    paiement = await EncaissementService(db, None).enregistrer(
        membre_id=membre.id, organisation_id=org.id, montant=Decimal(montant), methode=methode,
        cibles=[Cible(cotisation_id=cot.id)], date_paiement=date_paiement)
    await db.flush()
    return paiement
