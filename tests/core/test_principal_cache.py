"""Principal cache in one process: a principal is served from the cache (a write that bypasses the ORM is not
seen), and a role removed, a membership suspended or an API client revoked through the API stops working at the
next request. On PostgreSQL the cache is used only while its LISTEN connection is up: the fixture starts it."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from sqlalchemy import event, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from tests.conftest import BACKEND
from unionflow.core.principal_cache import PrincipalCache, PrincipalListener
from unionflow.models import MembreOrganisation


@pytest.fixture
async def cache(app: FastAPI, settings) -> AsyncIterator[PrincipalCache]:
    principal_cache: PrincipalCache = app.state.principal_cache
    principal_cache.clear()
    stop = asyncio.Event()
    task = None
    if BACKEND == "postgresql":
        listener = PrincipalListener(principal_cache, settings.database_url, 5)
        task = asyncio.create_task(listener.run(stop))
        await asyncio.wait_for(listener.connected.wait(), 30)
    assert principal_cache.usable
    try:
        yield principal_cache
    finally:
        stop.set()
        if task is not None:
            await task
        principal_cache.clear()


async def _set_membership_statut_behind_the_orm(db: AsyncSession, membre_id: uuid.UUID, statut: str) -> None:
    """A write on the connection, not through a session: no session event, so the cache cannot see it."""
    table = MembreOrganisation.__table__
    connection = await db.connection()
    await connection.execute(update(table).where(table.c.membre_id == membre_id).values(statut=statut))


async def test_a_removed_role_stops_working_at_once(client, factory, db, cache):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert tresorier.membre is not None
    assert (await client.get("/api/versements", headers=tresorier.headers)).status_code == 200
    assert len(cache) >= 1

    # Served from the cache: a change made behind the ORM's back is not seen within the TTL.
    await _set_membership_statut_behind_the_orm(db, tresorier.membre.id, "TERMINE")
    assert (await client.get("/api/versements", headers=tresorier.headers)).status_code == 200
    await _set_membership_statut_behind_the_orm(db, tresorier.membre.id, "ACTIF")

    removed = await client.put(f"/api/membres/{tresorier.membre.id}/organisations/{org.id}",
                               json={"roles": ["MEMBRE"]}, headers=admin.headers)
    assert removed.status_code == 200, removed.text
    assert (await client.get("/api/versements", headers=tresorier.headers)).status_code == 403


async def test_a_suspended_membership_stops_working_at_once(client, factory, cache):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert tresorier.membre is not None
    assert (await client.get("/api/versements", headers=tresorier.headers)).status_code == 200
    suspended = await client.post(f"/api/membres/{tresorier.membre.id}/statut",
                                  json={"statut": "SUSPENDU", "motif": "Cotisations impayées"}, headers=admin.headers)
    assert suspended.status_code == 200, suspended.text
    assert (await client.get("/api/versements", headers=tresorier.headers)).status_code == 403


async def test_a_deactivated_api_client_stops_working_at_once(client, factory, cache):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    membre = await factory.membre(org)
    created = await client.post("/api/admin/clients-api", headers=admin.headers,
                                json={"nom": "Logiciel", "roles": ["ADMIN_ORGANISATION"],
                                      "organisationIds": [str(org.id)]})
    assert created.status_code == 201, created.text
    body = created.json()
    basic = base64.b64encode(f"{body['clientId']}:{body['clientSecret']}".encode()).decode()
    issued = await client.post("/api/auth/token", data={"grant_type": "client_credentials"},
                               headers={"Authorization": f"Basic {basic}"})
    bearer = {"Authorization": f"Bearer {issued.json()['access_token']}"}
    assert (await client.get(f"/api/membres/{membre.id}", headers=bearer)).status_code == 200
    assert ("client", body["clientId"]) in cache._entries

    revoked = await client.post(f"/api/admin/clients-api/{body['id']}/revoquer", headers=admin.headers)
    assert revoked.status_code == 200
    assert (await client.get(f"/api/membres/{membre.id}", headers=bearer)).status_code == 401


async def test_a_write_that_rolls_back_never_leaves_its_grant_cached(client, factory, db, cache):
    org = await factory.organisation()
    membre_actor = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    assert membre_actor.membre is not None
    assert (await client.get("/api/versements", headers=membre_actor.headers)).status_code == 403
    # A grant flushed in a transaction that then rolls back: the cache is emptied at the flush and again at the
    # rollback, so a reader of the uncommitted row (same connection, as here) does not keep it.
    savepoint = await db.begin_nested()
    membership = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == membre_actor.membre.id))).scalar_one()
    membership.roles = ["MEMBRE", "TRESORIER"]
    await db.flush()
    assert len(cache) == 0
    assert (await client.get("/api/versements", headers=membre_actor.headers)).status_code == 200
    await savepoint.rollback()
    assert len(cache) == 0
    assert (await client.get("/api/versements", headers=membre_actor.headers)).status_code == 403


async def test_a_lookup_that_started_before_a_write_does_not_store_its_result(app: FastAPI, cache):
    generation = cache.generation
    cache.clear()  # what a commit deciding principals does while the lookup runs
    cache.put(("member", "iss", "sub", None), (None, {}), generation)
    assert len(cache) == 0
    cache.put(("member", "iss", "sub", None), (None, {}), cache.generation)
    assert len(cache) == 1


async def test_an_authenticated_status_with_a_cached_principal_runs_only_its_probe(app: FastAPI, client, factory,
                                                                                   cache):
    org = await factory.organisation()
    actor = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    assert (await client.get("/api/status", headers=actor.headers)).status_code == 200
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:
        statements.append(statement.strip())

    event.listen(app.state.engine.sync_engine, "before_cursor_execute", record)
    try:
        again = await client.get("/api/status", headers=actor.in_org(org.id))
    finally:
        event.remove(app.state.engine.sync_engine, "before_cursor_execute", record)
    assert again.status_code == 200 and again.json()["database"] == "UP"
    # No session (no BEGIN/COMMIT), no principal or organisation lookup: the probe alone. The SAVEPOINT around it
    # is the test harness's (core.db.autocommit_connection given the test's connection), not production's.
    assert [s for s in statements if "SAVEPOINT" not in s] == ["SELECT 1"]


async def test_an_approved_adhesion_counts_at_once_although_written_in_one_statement(client, factory, cache):
    """Approval writes the membership through core/lot.py (one data-modifying statement on PostgreSQL, which the
    session events see as a SELECT): the new member works in his organisation at the next request."""
    org = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    applicant = await factory.actor(["MEMBRE"])
    assert applicant.membre is not None
    created = await client.post("/api/adhesions", headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "15000"})
    assert created.status_code == 201, created.text
    mine = await client.get("/api/organisations/mes-organisations", headers=applicant.headers)
    assert mine.status_code == 200 and str(org.id) not in mine.text
    assert len(cache) >= 1
    approved = await client.post(f"/api/adhesions/{created.json()['id']}/approuver", headers=org_admin.headers)
    assert approved.status_code == 200, approved.text
    headers = {**applicant.headers, "X-Active-Organisation-Id": str(org.id)}
    assert (await client.get("/api/organisations/mes-organisations", headers=headers)).status_code == 200
