from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.models import AuditLog


async def test_admin_creates_reads_updates_and_audits(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    union = await client.post("/api/organisations", headers=admin.headers,
                              json={"nom": "Union des Mutuelles du Sénégal", "typeOrganisation": "UNION"})
    assert union.status_code == 201, union.text
    union_id = union.json()["id"]
    fed = await client.post("/api/organisations", headers=admin.headers, json={
        "nom": "Fédération de Dakar", "typeOrganisation": "FEDERATION", "parentId": union_id,
        "telephone": "+221771234567", "region": "Dakar"})
    assert fed.status_code == 201, fed.text
    body = fed.json()
    assert body["statut"] == "ACTIVE" and body["devise"] == "XOF" and body["parentId"] == union_id

    updated = await client.put(f"/api/organisations/{body['id']}", headers=admin.headers,
                               json={"ville": "Dakar"})
    assert updated.status_code == 200 and updated.json()["ville"] == "Dakar"

    children = await client.get(f"/api/organisations/{union_id}/enfants", headers=admin.headers)
    assert [c["id"] for c in children.json()] == [body["id"]]

    entries = (await db.execute(select(AuditLog).where(AuditLog.entite_id == body["id"]))).scalars().all()
    assert {e.type_action for e in entries} == {"CREER", "MODIFIER"}
    assert all(e.utilisateur == admin.user.email for e in entries)


async def test_hierarchy_is_enforced(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assoc = await factory.organisation()
    response = await client.post("/api/organisations", headers=admin.headers, json={
        "nom": "Union sous association", "typeOrganisation": "UNION", "parentId": str(assoc.id)})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_unknown_and_server_managed_fields_are_refused(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    response = await client.post("/api/organisations", headers=admin.headers, json={
        "nom": "Org", "typeOrganisation": "ASSOCIATION", "statut": "SUSPENDUE"})
    assert response.status_code == 400
    problem = response.json()
    assert problem["status"] == 400 and any(e["field"] == "statut" for e in problem["errors"])


async def test_suspend_and_reactivate(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    missing_reason = await client.post(f"/api/organisations/{org.id}/suspendre", headers=admin.headers, json={})
    assert missing_reason.status_code == 400
    suspended = await client.post(f"/api/organisations/{org.id}/suspendre", headers=admin.headers,
                                  json={"motif": "Comptes non déposés"})
    assert suspended.json()["statut"] == "SUSPENDUE"
    again = await client.post(f"/api/organisations/{org.id}/suspendre", headers=admin.headers,
                              json={"motif": "encore"})
    assert again.status_code == 400
    back = await client.post(f"/api/organisations/{org.id}/reactiver", headers=admin.headers)
    assert back.json()["statut"] == "ACTIVE"


async def test_member_sees_directory_and_own_organisations_only(client, factory):
    org = await factory.organisation(nom="Mutuelle de Thiès")
    hidden = await factory.organisation(nom="Tontine suspendue", statut="SUSPENDUE")
    member = await factory.actor(["USER"], organisation=org)
    mine = await client.get("/api/organisations/mes-organisations", headers=member.headers)
    assert [(o["id"], o["roles"]) for o in mine.json()] == [(str(org.id), ["MEMBRE"])]
    assert (await client.get(f"/api/organisations/{hidden.id}", headers=member.headers)).status_code == 404
    listing = await client.get("/api/organisations", params={"q": "thiès", "size": 5}, headers=member.headers)
    assert listing.status_code == 200
    page = listing.json()
    assert page["totalElements"] == 1 and page["first"] and page["last"] and page["size"] == 5


async def test_org_admin_cannot_update_another_organisation(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    org_admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    ok = await client.put(f"/api/organisations/{org.id}", headers=org_admin.headers, json={"ville": "Thiès"})
    assert ok.status_code == 200
    refused = await client.put(f"/api/organisations/{other.id}", headers=org_admin.headers, json={"ville": "X"})
    assert refused.status_code == 403


async def test_paging_limits(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get("/api/organisations?size=0", headers=admin.headers)).status_code == 400
    assert (await client.get("/api/organisations?page=-1", headers=admin.headers)).status_code == 400
    assert (await client.get("/api/organisations?size=201", headers=admin.headers)).status_code == 400
    assert (await client.get(f"/api/organisations/{uuid.uuid4()}", headers=admin.headers)).status_code == 404
