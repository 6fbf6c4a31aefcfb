from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.models import AuditLog


async def test_add_change_roles_end_and_reopen(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des enseignants")
    second = await factory.organisation(nom="Tontine de Pikine")
    admin = await factory.actor(["ADMIN"], with_membre=False)
    membre = await factory.membre(org)
    base = f"/api/membres/{membre.id}/organisations"

    added = await client.post(base, headers=admin.headers, json={"organisationId": str(second.id)})
    assert added.status_code == 201, added.text
    assert added.json()["roles"] == ["MEMBRE"] and added.json()["organisationNom"] == "Tontine de Pikine"
    assert (await client.post(base, headers=admin.headers, json={"organisationId": str(second.id)})).status_code == 409

    roles = await client.put(f"{base}/{second.id}", headers=admin.headers, json={"roles": ["SECRETAIRE"]})
    assert roles.status_code == 200 and roles.json()["roles"] == ["MEMBRE", "SECRETAIRE"]
    assert (await client.put(f"{base}/{second.id}", headers=admin.headers,
                             json={"roles": ["ADMIN"]})).status_code == 400
    entry = (await db.execute(select(AuditLog).where(AuditLog.type_action == "ATTRIBUER_ROLES",
                                                     AuditLog.organisation_id == second.id))).scalar_one()
    assert entry.severite == "WARNING" and entry.details["avant"]["roles"] == ["MEMBRE"]

    ended = await client.post(f"{base}/{second.id}/terminer", headers=admin.headers, json={"motif": "Démission"})
    assert ended.status_code == 200 and ended.json()["statut"] == "TERMINE" and ended.json()["dateFin"]
    assert (await client.post(f"{base}/{second.id}/terminer", headers=admin.headers)).status_code == 400
    assert (await client.put(f"{base}/{second.id}", headers=admin.headers,
                             json={"roles": ["MEMBRE"]})).status_code == 400

    reopened = await client.post(base, headers=admin.headers, json={"organisationId": str(second.id)})
    assert reopened.status_code == 201 and reopened.json()["statut"] == "ACTIF" and reopened.json()["dateFin"] is None
    listing = await client.get(base, headers=admin.headers)
    assert [m["organisationNom"] for m in listing.json()] == ["Mutuelle des enseignants", "Tontine de Pikine"]
    assert (await client.put(f"{base}/{uuid.uuid4()}", headers=admin.headers,
                             json={"roles": ["MEMBRE"]})).status_code == 404


async def test_staff_see_only_their_organisations_memberships(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    membre = await factory.membre(org)
    admin = await factory.actor(["ADMIN"], with_membre=False)
    await client.post(f"/api/membres/{membre.id}/organisations", headers=admin.headers,
                      json={"organisationId": str(other.id)})
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    seen = await client.get(f"/api/membres/{membre.id}/organisations", headers=treasurer.headers)
    assert [m["organisationId"] for m in seen.json()] == [str(org.id)]


async def test_secretary_cannot_grant_roles_and_org_admin_keeps_an_admin(client, factory):
    org = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    membre = await factory.membre(org)
    url = f"/api/membres/{membre.id}/organisations/{org.id}"
    assert (await client.put(url, headers=secretary.headers, json={"roles": ["TRESORIER"]})).status_code == 403
    assert (await client.put(url, headers=org_admin.headers, json={"roles": ["TRESORIER"]})).status_code == 200

    self_url = f"/api/membres/{org_admin.membre.id}/organisations/{org.id}"
    demote = await client.put(self_url, headers=org_admin.headers, json={"roles": ["MEMBRE"]})
    assert demote.status_code == 409
    leave = await client.post(f"{self_url}/terminer", headers=org_admin.headers)
    assert leave.status_code == 409
    promoted = await client.put(url, headers=org_admin.headers, json={"roles": ["ADMIN_ORGANISATION"]})
    assert promoted.status_code == 200
    assert (await client.put(self_url, headers=org_admin.headers, json={"roles": ["MEMBRE"]})).status_code == 200


async def test_no_membership_for_suspended_member_or_foreign_organisation(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    membre = await factory.membre(org)
    foreign = await client.post(f"/api/membres/{membre.id}/organisations", headers=secretary.headers,
                                json={"organisationId": str(other.id)})
    assert foreign.status_code == 403
    suspended = await factory.membre(org, statut="SUSPENDU")
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post(f"/api/membres/{suspended.id}/organisations", headers=admin.headers,
                                 json={"organisationId": str(other.id)})
    assert response.status_code == 400


async def test_former_organisation_reads_but_no_longer_writes(client, factory):
    org = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    membre = await factory.membre(org, telephone="+221780000042")
    ended = await client.post(f"/api/membres/{membre.id}/organisations/{org.id}/terminer", headers=secretary.headers,
                              json={"motif": "Déménagement"})
    assert ended.status_code == 200
    still_listed = await client.get("/api/membres", headers=secretary.headers, params={"q": "+221780000042"})
    assert [m["id"] for m in still_listed.json()["content"]] == [str(membre.id)]
    assert (await client.get(f"/api/membres/{membre.id}", headers=secretary.headers)).status_code == 200
    assert (await client.put(f"/api/membres/{membre.id}", headers=secretary.headers,
                             json={"ville": "Thiès"})).status_code == 403
