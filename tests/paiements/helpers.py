"""Builders of dues and adhesions as database rows (the Adhésions/Cotisations endpoints are another area)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.models import Adhesion, Cotisation, Membre, Organisation


async def cotisation(db: AsyncSession, membre: Membre, organisation: Organisation, montant: str | int = 5000,
                     *, echeance: date | None = None, commit: bool = False, **values: Any) -> Cotisation:
    today = date.today()
    row = Cotisation(numero_reference=f"COT-T-{uuid.uuid4().hex[:10].upper()}", membre_id=membre.id,
                     organisation_id=organisation.id, type_cotisation="MENSUELLE", libelle="Cotisation mensuelle",
                     annee=today.year, mois=today.month, montant_du=Decimal(str(montant)),
                     date_echeance=echeance or today + timedelta(days=15), statut="EN_ATTENTE")
    for key, value in values.items():
        setattr(row, key, value)
    db.add(row)
    await db.flush()
    if commit:
        await db.commit()
    return row


async def adhesion(db: AsyncSession, membre: Membre, organisation: Organisation, frais: str | int = 10000,
                   *, statut: str = "APPROUVEE", commit: bool = False) -> Adhesion:
    row = Adhesion(numero_reference=f"ADH-T-{uuid.uuid4().hex[:10].upper()}", membre_id=membre.id,
                   organisation_id=organisation.id, statut=statut, date_demande=date.today(),
                   frais_adhesion=Decimal(str(frais)),
                   date_approbation=datetime.now(UTC) if statut == "APPROUVEE" else None)
    db.add(row)
    await db.flush()
    if commit:
        await db.commit()
    return row
