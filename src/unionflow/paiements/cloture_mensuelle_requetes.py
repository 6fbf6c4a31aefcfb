"""What the monthly closing (comptabilite/cloture_mensuelle_service.py, issue 19) asks of the payments table.

Called after the closing service checked the caller's permission for the organisation: plain counts and lists of
one organisation's payments, no visibility rule of their own."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Paiement
from unionflow.models.paiement import StatutPaiement


async def en_attente_depuis(session: AsyncSession, organisation_id: uuid.UUID, avant: datetime) -> int:
    """Payments still waiting for the treasury (declared, or a Wave session never settled) since before ``avant``."""
    stmt = select(func.count()).select_from(Paiement).where(
        Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.EN_ATTENTE.value,
        Paiement.created_at < avant)
    return int((await session.execute(stmt)).scalar_one())


async def annules_ou_rembourses(session: AsyncSession, organisation_id: uuid.UUID, debut: datetime,
                                fin: datetime) -> list[Paiement]:
    """Payments cancelled or refunded between ``debut`` (inclusive) and ``fin`` (exclusive): their last change."""
    stmt = (select(Paiement)
            .where(Paiement.organisation_id == organisation_id,
                   Paiement.statut.in_([StatutPaiement.ANNULE.value, StatutPaiement.REMBOURSE.value]),
                   Paiement.updated_at >= debut, Paiement.updated_at < fin)
            .order_by(Paiement.updated_at, Paiement.numero_recu))
    return list((await session.execute(stmt)).scalars())
