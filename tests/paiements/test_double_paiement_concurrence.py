"""Issue 28, item 6, with real commits and real parallelism (PostgreSQL): declarations and Wave checkouts of one
dues started together leave exactly one pending payment — the targets' row locks make the check hold."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from tests.factories.cotisations import cotisation
from unionflow.models import Paiement


@pytest.mark.postgresql_only
async def test_parallel_declarations_and_checkouts_leave_one_pending_payment(client, committed_factory,
                                                                             committed_db, wave):
    org = await committed_factory.organisation()
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(committed_db, member.membre, org, 2000, commit=True)
    declare = {"montant": "2000", "methodePaiement": "ESPECES"}
    checkout = {"organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]}
    calls = []
    for _ in range(4):
        calls.append(client.put(f"/api/cotisations/{dues.id}/payer", headers=member.headers, json=declare))
        calls.append(client.post("/api/paiements/wave/checkout", headers=member.headers, json=checkout))
    responses = await asyncio.gather(*calls)

    statuses = sorted(r.status_code for r in responses)
    assert statuses.count(409) == 7 and set(statuses) - {409} <= {200, 201}, [r.text for r in responses]
    membre_id = member.membre.id
    committed_db.expire_all()
    pending = (await committed_db.execute(select(Paiement.statut).where(Paiement.membre_id == membre_id))).all()
    assert [row[0] for row in pending] == ["EN_ATTENTE"]
