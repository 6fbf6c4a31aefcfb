"""An organisation's bureau, a small chart of accounts, entries posted by name, aid requests, approval thresholds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.factories import Actor
from tests.factories.comptabilite import compte, ecriture, journal
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
    if response.status_code == 202:  # it touches the bank: the president approves it (saisies/)
        response = await client.post(f"/api/comptabilite/demandes-ecritures/{response.json()['id']}/approuver",
                                     headers=b.president.headers, json={})
    assert response.status_code == 200, response.text


async def demande_aide(db: Any, org: Organisation, membre: Any, statut: str = "APPROUVEE", type_aide: str = "DECES",
                       demande: str = "150000", accorde: str | None = "100000") -> Any:
    import uuid as _uuid
    from datetime import UTC, datetime
    from decimal import Decimal

    from unionflow.models import DemandeAide

    row = DemandeAide(numero_reference=f"AIDE-T-{_uuid.uuid4().hex[:10]}", organisation_id=org.id,
                      membre_id=membre.id, type_aide=type_aide, titre="Décès du père", description="Obsèques",
                      montant_demande=Decimal(demande), montant_accorde=Decimal(accorde) if accorde else None,
                      devise="XOF", urgence="ELEVEE", statut=statut, date_soumission=datetime.now(UTC))
    db.add(row)
    await db.flush()
    return row


async def seuils(client: Any, factory: Any, versement: str | None = None, double: str | None = None) -> None:
    """Set the approval thresholds (configuration, rolled back with the test)."""
    admin = await factory.actor(["ADMIN"], with_membre=False)
    for cle, value in (("finance.approbation.seuil_versement", versement),
                       ("finance.approbation.seuil_double", double)):
        if value is not None:
            r = await client.put(f"/api/configuration/{cle}", headers=admin.headers, json={"valeur": value})
            assert r.status_code == 200, r.text
