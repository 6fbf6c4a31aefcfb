from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import func, select

from unionflow.models import AuditLog, Membre, MembreOrganisation


@pytest.mark.postgresql_only
async def test_parallel_registrations_get_distinct_gap_free_numbers(client, committed_factory):
    admin = await committed_factory.actor(["ADMIN"], with_membre=False)
    shared = f"double.{uuid.uuid4().hex[:6]}@example.sn"

    async def create(i: int, email: str | None = None):
        return await client.post("/api/membres", headers=admin.headers, json={
            "prenom": f"P{i}", "nom": "Parallele", "email": email or f"p{i}.{uuid.uuid4().hex[:6]}@example.sn"})

    responses = await asyncio.gather(*(create(i) for i in range(6)), create(98, shared), create(99, shared))
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] * 7 + [409], [r.text for r in responses]
    numbers = sorted(int(r.json()["numeroMembre"][-6:]) for r in responses if r.status_code == 201)
    assert numbers == list(range(numbers[0], numbers[0] + 7))  # the refused one gave its number back


@pytest.mark.postgresql_only
async def test_parallel_association_stays_idempotent(client, committed_factory, committed_db):
    sa = await committed_factory.actor(["SUPER_ADMIN"], with_membre=False)
    org = await committed_factory.organisation()
    email = f"course.{uuid.uuid4().hex[:6]}@example.sn"
    responses = await asyncio.gather(*(client.post("/api/admin/associer-organisation", headers=sa.headers,
                                                   json={"email": email, "organisationId": str(org.id)})
                                       for _ in range(4)))
    assert [r.status_code for r in responses] == [200] * 4, [r.text for r in responses]
    assert sum(r.json()["modifie"] for r in responses) == 1
    assert len({r.json()["membreId"] for r in responses}) == 1
    membres = (await committed_db.execute(select(func.count()).select_from(Membre).where(
        Membre.email == email))).scalar_one()
    links = (await committed_db.execute(select(func.count()).select_from(MembreOrganisation).where(
        MembreOrganisation.organisation_id == org.id))).scalar_one()
    entries = (await committed_db.execute(select(func.count()).select_from(AuditLog).where(
        AuditLog.type_action == "ASSOCIER_ORGANISATION"))).scalar_one()
    assert (membres, links, entries) == (1, 1, 1)
