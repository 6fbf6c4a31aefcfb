from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from sqlalchemy import select

from unionflow.models import AuditLog, MembreOrganisation


def _payload(**extra):
    suffix = uuid.uuid4().hex[:8]
    return {"prenom": "Fatou", "nom": "Sow", "email": f"Fatou.Sow.{suffix}@Example.SN",
            "telephone": "+221771234567", **extra}


async def test_admin_creates_member_with_sequential_number_and_membership(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    org = await factory.organisation()
    first = await client.post("/api/membres", headers=admin.headers,
                              json=_payload(organisationId=str(org.id), roles=["TRESORIER"]))
    assert first.status_code == 201, first.text
    body = first.json()
    year = datetime.now(UTC).year
    assert re.fullmatch(rf"MBR-{year}-\d{{6}}", body["numeroMembre"])
    assert body["email"] == body["email"].lower() and body["statut"] == "ACTIF" and body["compteLie"] is False
    second = await client.post("/api/membres", headers=admin.headers, json=_payload())
    assert int(second.json()["numeroMembre"][-6:]) == int(body["numeroMembre"][-6:]) + 1

    memberships = await client.get(f"/api/membres/{body['id']}/organisations", headers=admin.headers)
    assert memberships.headers["X-Total-Count"] == "1"
    [m] = memberships.json()
    assert m["organisationId"] == str(org.id) and m["roles"] == ["MEMBRE", "TRESORIER"] and m["statut"] == "ACTIF"

    actions = (await db.execute(select(AuditLog.type_action).where(AuditLog.module == "MEMBRES"))).scalars().all()
    assert {"CREER", "AJOUTER_APPARTENANCE"} <= set(actions)


async def test_duplicate_email_is_409_case_insensitively(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    data = _payload()
    assert (await client.post("/api/membres", headers=admin.headers, json=data)).status_code == 201
    again = await client.post("/api/membres", headers=admin.headers,
                              json={**_payload(), "email": data["email"].upper()})
    assert again.status_code == 409
    other = await client.post("/api/membres", headers=admin.headers, json=_payload())
    clash = await client.put(f"/api/membres/{other.json()['id']}", headers=admin.headers,
                             json={"email": data["email"]})
    assert clash.status_code == 409


async def test_input_rules(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    bad_phone = await client.post("/api/membres", headers=admin.headers, json=_payload(telephone="771234567"))
    assert bad_phone.status_code == 400
    server_field = await client.post("/api/membres", headers=admin.headers, json=_payload(numeroMembre="X"))
    assert server_field.status_code == 400 and server_field.json()["errors"][0]["field"] == "numeroMembre"
    roles_without_org = await client.post("/api/membres", headers=admin.headers, json=_payload(roles=["MEMBRE"]))
    assert roles_without_org.status_code == 400
    realm_role = await client.post("/api/membres", headers=admin.headers,
                                   json=_payload(organisationId=str((await factory.organisation()).id),
                                                 roles=["SUPER_ADMIN"]))
    assert realm_role.status_code == 400
    missing_org = await client.post("/api/membres", headers=admin.headers,
                                    json=_payload(organisationId=str(uuid.uuid4())))
    assert missing_org.status_code == 404


async def test_secretary_registers_in_own_organisation_only(client, factory):
    org = await factory.organisation()
    other = await factory.organisation()
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    no_org = await client.post("/api/membres", headers=secretary.headers, json=_payload())
    assert no_org.status_code == 400
    elsewhere = await client.post("/api/membres", headers=secretary.headers,
                                  json=_payload(organisationId=str(other.id)))
    assert elsewhere.status_code == 403
    grants_staff = await client.post("/api/membres", headers=secretary.headers,
                                     json=_payload(organisationId=str(org.id), roles=["TRESORIER"]))
    assert grants_staff.status_code == 403
    ok = await client.post("/api/membres", headers=secretary.headers, json=_payload(organisationId=str(org.id)))
    assert ok.status_code == 201
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    assert (await client.post("/api/membres", headers=treasurer.headers,
                              json=_payload(organisationId=str(org.id)))).status_code == 403


async def test_suspended_organisation_takes_no_new_member(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation(statut="SUSPENDUE")
    response = await client.post("/api/membres", headers=admin.headers, json=_payload(organisationId=str(org.id)))
    assert response.status_code == 400


async def test_visibility_by_role(client, factory):
    org = await factory.organisation()
    other_org = await factory.organisation()
    colleague = await factory.membre(org)
    stranger = await factory.membre(other_org)
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org)

    assert (await client.get(f"/api/membres/{colleague.id}", headers=treasurer.headers)).status_code == 200
    assert (await client.get(f"/api/membres/{stranger.id}", headers=treasurer.headers)).status_code == 404
    listing = await client.get("/api/membres", headers=treasurer.headers, params={"size": 200})
    ids = {m["id"] for m in listing.json()["content"]}
    assert str(colleague.id) in ids and str(stranger.id) not in ids

    assert (await client.get(f"/api/membres/{colleague.id}", headers=member.headers)).status_code == 404
    own = await client.get(f"/api/membres/{member.membre.id}", headers=member.headers)
    assert own.status_code == 200
    by_number = await client.get(f"/api/membres/numero/{colleague.numero_membre}", headers=member.headers)
    assert by_number.status_code == 404
    assert (await client.get("/api/membres", headers=member.headers)).status_code == 403

    admin = await factory.actor(["ADMIN"], with_membre=False)
    found = await client.get(f"/api/membres/numero/{stranger.numero_membre}", headers=admin.headers)
    assert found.status_code == 200 and found.json()["id"] == str(stranger.id)


async def test_search_filters_and_paging(client, factory):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    marker = uuid.uuid4().hex[:6]
    a = await factory.membre(org, nom=f"Ndiaye{marker}", telephone="+221770000001")
    await factory.membre(None, nom=f"Ndiaye{marker}", statut="SUSPENDU")
    await factory.membre(org, prenom=f"Moussa{marker}", nom="Ba")

    by_name = await client.get("/api/membres", headers=admin.headers, params={"q": f"ndiaye{marker}"})
    assert by_name.json()["totalElements"] == 2
    by_org = await client.get("/api/membres", headers=admin.headers,
                              params={"q": marker, "organisationId": str(org.id)})
    assert by_org.json()["totalElements"] == 2
    by_status = await client.get("/api/membres", headers=admin.headers, params={"q": marker, "statut": "SUSPENDU"})
    assert by_status.json()["totalElements"] == 1
    by_phone = await client.get("/api/membres", headers=admin.headers,
                                params={"telephone": "+221770000001", "q": marker})
    assert [m["id"] for m in by_phone.json()["content"]] == [str(a.id)]
    by_email = await client.get("/api/membres", headers=admin.headers, params={"email": a.email.upper()})
    assert [m["id"] for m in by_email.json()["content"]] == [str(a.id)]
    paged = await client.get("/api/membres", headers=admin.headers, params={"q": marker, "size": 2, "page": 1})
    page = paged.json()
    assert len(page["content"]) == 1 and page["totalElements"] == 3 and page["totalPages"] == 2 and page["last"]
    assert (await client.get("/api/membres", headers=admin.headers,
                             params={"telephone": "0770000001"})).status_code == 400
    assert (await client.get("/api/membres", headers=admin.headers, params={"statut": "PARTI"})).status_code == 400


async def test_update_by_register_keeper_and_audit(client, factory, db):
    org = await factory.organisation()
    other = await factory.organisation()
    target = await factory.membre(org)
    outsider = await factory.membre(other)
    secretary = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    response = await client.put(f"/api/membres/{target.id}", headers=secretary.headers,
                                json={"ville": "Kaolack", "profession": "Commerçante"})
    assert response.status_code == 200 and response.json()["ville"] == "Kaolack"
    assert (await client.put(f"/api/membres/{outsider.id}", headers=secretary.headers,
                             json={"ville": "X"})).status_code == 404
    assert (await client.put(f"/api/membres/{target.id}", headers=secretary.headers,
                             json={"nom": None})).status_code == 400
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == str(target.id),
                                                     AuditLog.type_action == "MODIFIER"))).scalar_one()
    assert entry.organisation_id == org.id
    assert entry.details["apres"]["ville"] == "Kaolack" and entry.details["avant"]["ville"] is None


async def test_my_profile(client, factory):
    org = await factory.organisation()
    member = await factory.actor(["USER"], organisation=org)
    me = await client.get("/api/membres/me", headers=member.headers)
    assert me.status_code == 200 and me.json()["id"] == str(member.membre.id) and me.json()["compteLie"]
    updated = await client.put("/api/membres/me", headers=member.headers,
                               json={"telephone": "+2250707070707", "ville": "Abidjan", "pays": "CI"})
    assert updated.status_code == 200 and updated.json()["ville"] == "Abidjan"
    for forbidden in ({"nom": "Autre"}, {"email": "x@example.sn"}, {"statut": "ACTIF"}):
        assert (await client.put("/api/membres/me", headers=member.headers, json=forbidden)).status_code == 400
    nobody = await factory.actor(["USER"], with_membre=False)
    assert (await client.get("/api/membres/me", headers=nobody.headers)).status_code == 404


async def test_requires_authentication_and_role(client, factory):
    assert (await client.get("/api/membres")).status_code == 401
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await client.post("/api/membres", headers=member.headers, content=b"{not json")
    assert response.status_code == 403


async def test_membership_row_unique(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    created = await client.post("/api/membres", headers=admin.headers, json=_payload(organisationId=str(org.id)))
    rows = (await db.execute(select(MembreOrganisation).where(
        MembreOrganisation.membre_id == uuid.UUID(created.json()["id"])))).scalars().all()
    assert len(rows) == 1
