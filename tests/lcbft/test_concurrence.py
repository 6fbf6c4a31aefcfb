from __future__ import annotations

import asyncio

import pytest

from tests.factories.paiements import paiement_valide
from unionflow.lcbft.service import evaluer_paiement


@pytest.mark.postgresql_only
async def test_an_alert_is_processed_once_under_concurrency(client, committed_db, committed_factory):
    org = await committed_factory.organisation()
    membre = await committed_factory.membre(org)
    alerts = await evaluer_paiement(committed_db, await paiement_valide(committed_db, membre, org, "6000000"))
    await committed_db.commit()
    admin_org = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    url = f"/api/alertes-lcb-ft/{alerts[0].id}/traiter"
    responses = await asyncio.gather(*[client.post(url, headers=admin_org.headers, json={"commentaire": f"avis {i}"})
                                       for i in range(4)])
    assert sorted(r.status_code for r in responses) == [200, 409, 409, 409]
