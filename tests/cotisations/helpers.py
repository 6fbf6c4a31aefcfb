"""Builders for dues tests: rows inserted directly (the API paths are tested separately)."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from unionflow.cotisations.service import today_utc
from unionflow.models import Cotisation

BASE = "/api/cotisations"


def days(n: int) -> date:
    return today_utc() + timedelta(days=n)


async def cotisation(factory: Any, membre: Any, organisation: Any, montant: str = "5000", echeance: date | None = None,
                     **values: Any) -> Cotisation:
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


async def treasury(factory: Any) -> tuple[Any, Any, Any, Any]:
    """An organisation, its treasurer, and two members (A and B) of it."""
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    a = await factory.actor(["MEMBRE"], organisation=org)
    b = await factory.actor(["MEMBRE"], organisation=org)
    return org, treasurer, a, b
