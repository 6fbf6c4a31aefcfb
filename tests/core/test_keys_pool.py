"""The signing keys are read on authentication's own pool, not the request pool.

A write request opens its session (maintenance gate; on SQLite ``BEGIN IMMEDIATE``) before its token is verified.
A worker whose key cache is cold (just started, or keys rotated) and receives more concurrent writes than its
request pool holds had every pooled connection taken by a session waiting for the key read, and the key read
waiting for a pooled connection: every request failed on the pool timeout (bench, SQLite S5: 0 req/s)."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from tests.factories.cotisations import cotisation_a_venir
from unionflow.app import create_app


async def test_a_burst_of_writes_on_a_cold_worker_does_not_starve_the_key_read(settings, committed_factory):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = [await cotisation_a_venir(committed_factory, member.membre, org, montant="1000") for _ in range(6)]
    # A fresh worker: no key cached, a request pool smaller than the burst. The pool timeout is long on purpose:
    # the starvation this guards against is a deadlock (every request waits until the timeout, whatever it is),
    # while six payments queueing on two connections of a loaded machine legitimately wait several seconds (a
    # 3 s timeout failed under a parallel suite).
    worker = create_app(settings.model_copy(update={"database_pool_size": 2, "database_pool_timeout_seconds": 30.0}))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=worker), base_url="http://testserver") as http:
            responses = await asyncio.gather(*(
                http.put(f"/api/cotisations/{d.id}/payer", json={"montant": "1000"},
                         headers={**treasurer.headers, "Idempotency-Key": str(uuid.uuid4())}) for d in dues))
    finally:
        await worker.state.engine.dispose()
        await worker.state.principal_engine.dispose()
    assert [r.status_code for r in responses] == [200] * len(dues), [r.text[:200] for r in responses]
