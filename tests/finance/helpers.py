from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.comptabilite.helpers import compte, ecriture, journal
from tests.factories import Actor
from unionflow.models import Organisation


@dataclass
class Bureau:
    org: Organisation
    tresorier: Actor
    president: Actor
    admin_org: Actor
    membre: Actor


async def bureau(factory: Any) -> Bureau:
    org = await factory.organisation()
    return Bureau(
        org=org,
        tresorier=await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"]),
        president=await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"]),
        admin_org=await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"]),
        membre=await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"]),
    )


async def plan(client: Any, b: Bureau) -> dict[str, Any]:
    """A small chart of accounts and a bank journal for the organisation."""
    h = b.tresorier.headers
    return {
        "banque": await compte(client, h, b.org.id, "521", "Banque"),
        "fournitures": await compte(client, h, b.org.id, "6041", "Fournitures"),
        "transport": await compte(client, h, b.org.id, "6181", "Transport"),
        "salaires": await compte(client, h, b.org.id, "661", "Salaires"),
        "primes": await compte(client, h, b.org.id, "663", "Primes"),
        "cotisations": await compte(client, h, b.org.id, "7061", "Cotisations"),
        "journal": await journal(client, h, b.org.id),
    }


async def poster(client: Any, b: Bureau, p: dict[str, Any], day: str, lignes: list[tuple[str, str, str]]) -> None:
    body = ecriture(p["journal"]["id"], [(p[name]["id"], d, c) for name, d, c in lignes], day)
    response = await client.post("/api/comptabilite/ecritures", headers=b.tresorier.headers, json=body)
    assert response.status_code == 200, response.text
