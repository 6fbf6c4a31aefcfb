"""Dues and adhesions as database rows (their API paths are tested in their own areas).

``cotisation``: dues of the current month, due in 15 days, on a session. ``cotisation_a_venir``: the dues
engine's tests' row, March 2026 and due in 30 days unless said otherwise, written through the factory (and
committed with it when the factory commits)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.cotisations.service import today_utc
from unionflow.models import Adhesion, Cotisation, Membre, Organisation

BASE = "/api/cotisations"


def days(n: int) -> date:
    return today_utc() + timedelta(days=n)


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


async def treasury(factory: Any) -> tuple[Any, Any, Any, Any]:
    """An organisation, its treasurer, and two members (A and B) of it."""
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    a = await factory.actor(["MEMBRE"], organisation=org)
    b = await factory.actor(["MEMBRE"], organisation=org)
    return org, treasurer, a, b


async def cotisation_a_venir(factory: Any, membre: Any, organisation: Any, montant: str = "5000",
                             echeance: date | None = None, **values: Any) -> Cotisation:
    data: dict[str, Any] = {
        "numero_reference": f"COT-T-{uuid.uuid4().hex[:10].upper()}", "membre_id": membre.id,
        "organisation_id": organisation.id, "type_cotisation": "MENSUELLE", "libelle": "Cotisation test",
        "annee": 2026, "mois": 3, "montant_du": Decimal(montant), "montant_paye": Decimal("0"), "devise": "XOF",
        "date_echeance": echeance or days(30), "statut": "EN_ATTENTE",
    }
    data.update(values)
    row = Cotisation(**data)
    factory.session.add(row)
    await factory._flush()
    return row
