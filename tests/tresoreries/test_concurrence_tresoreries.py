"""Concurrent movements out of one cash box are checked one after the other (the treasury's row lock): of four
transfers of 15 000 out of a 20 000 cash box, exactly one passes and the box ends at 5 000, never below zero."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from tests.factories.cotisations import cotisation
from tests.factories.tresoreries import declarer


@pytest.mark.postgresql_only
async def test_concurrent_transfers_never_overdraw_the_cash_box(client, committed_db, committed_factory):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.membre(org)
    dues = await cotisation(committed_db, member, org, "20000")
    await committed_db.commit()
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.id), "organisationId": str(org.id), "montant": "20000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    caisse = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "CAISSE", "Caisse", "571"))).json()
    banque = (await client.post("/api/tresoreries", headers=treasurer.headers,
                                json=declarer(org, "BANQUE", "Banque", "521"))).json()
    body = {"organisationId": str(org.id), "sourceId": caisse["id"], "destinationId": banque["id"],
            "montant": "15000", "libelle": "Dépôt à la banque"}
    responses = await asyncio.gather(*[client.post("/api/tresoreries/virements-internes", headers=treasurer.headers,
                                                   json=body) for _ in range(4)])
    assert sorted(r.status_code for r in responses) == [201, 400, 400, 400], [r.text for r in responses]
    after = (await client.get(f"/api/tresoreries/{caisse['id']}", headers=treasurer.headers)).json()
    assert Decimal(after["solde"]) == Decimal("5000")
