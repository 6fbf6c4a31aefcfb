"""Machine clients: OAuth 2.0 client credentials, scoped to roles and organisations like a person's memberships."""

from __future__ import annotations

import base64

from sqlalchemy import select

from unionflow.models import AuditLog, ClientApi


def _basic(client_id: str, secret: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


async def _create(client, admin, **body):
    payload = {"nom": "Logiciel comptable", "roles": ["ADMIN_ORGANISATION"], **body}
    return await client.post("/api/admin/clients-api", json=payload, headers=admin.headers)


async def _token(client, client_id, secret):
    return await client.post("/api/auth/token", data={"grant_type": "client_credentials"},
                             headers=_basic(client_id, secret))


async def test_client_credentials_token_acts_only_in_its_organisations(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org_a, org_b = await factory.organisation(), await factory.organisation()
    membre_a, membre_b = await factory.membre(org_a), await factory.membre(org_b)

    created = await _create(client, admin, organisationIds=[str(org_a.id)])
    assert created.status_code == 201, created.text
    body = created.json()
    secret = body["clientSecret"]
    assert body["clientId"].startswith("ufc_") and secret.startswith("ufs_")
    stored = (await db.execute(select(ClientApi).where(ClientApi.client_id == body["clientId"]))).scalar_one()
    assert secret not in stored.secret_hash and stored.secret_hash.startswith("$argon2")

    issued = await _token(client, body["clientId"], secret)
    assert issued.status_code == 200, issued.text
    assert "refresh_token" not in issued.json()
    bearer = {"Authorization": f"Bearer {issued.json()['access_token']}"}

    assert (await client.get(f"/api/membres/{membre_a.id}", headers=bearer)).status_code == 200
    assert (await client.get(f"/api/membres/{membre_b.id}", headers=bearer)).status_code == 404
    updated = await client.put(f"/api/organisations/{org_a.id}", json={"description": "Synchronisée"},
                               headers=bearer)
    assert updated.status_code == 200, updated.text
    refused = await client.put(f"/api/organisations/{org_b.id}", json={"description": "Hors périmètre"},
                               headers=bearer)
    assert refused.status_code == 403
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == str(org_a.id),
                                                     AuditLog.type_action == "MODIFIER"))).scalars().first()
    assert entry is not None and body["clientId"] in (entry.utilisateur or "")

    # Form fields (client_secret_post) work too.
    posted = await client.post("/api/auth/token", data={"grant_type": "client_credentials",
                                                         "client_id": body["clientId"], "client_secret": secret})
    assert posted.status_code == 200


async def test_secret_is_never_returned_again(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    created = (await _create(client, admin, organisationIds=[str(org.id)])).json()
    listing = await client.get("/api/admin/clients-api", headers=admin.headers)
    one = await client.get(f"/api/admin/clients-api/{created['id']}", headers=admin.headers)
    assert listing.status_code == 200 and one.status_code == 200
    for text in (listing.text, one.text):
        assert created["clientSecret"] not in text and "secret" not in text.lower()
    assert created["id"] in {c["id"] for c in listing.json()["content"]}


async def test_revoked_client_gets_invalid_client_and_its_tokens_stop(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    membre = await factory.membre(org)
    created = (await _create(client, admin, organisationIds=[str(org.id)])).json()
    token = (await _token(client, created["clientId"], created["clientSecret"])).json()["access_token"]

    revoked = await client.post(f"/api/admin/clients-api/{created['id']}/revoquer", headers=admin.headers)
    assert revoked.status_code == 200 and revoked.json()["actif"] is False
    refused = await _token(client, created["clientId"], created["clientSecret"])
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    in_flight = await client.get(f"/api/membres/{membre.id}", headers={"Authorization": f"Bearer {token}"})
    assert in_flight.status_code == 401
    actions = set((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == created["id"]))).scalars())
    assert actions == {"CREER", "REVOQUER"}


async def test_wrong_secret_and_unknown_client_are_invalid_client(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    created = (await _create(client, admin, organisationIds=[str(org.id)])).json()
    wrong = await _token(client, created["clientId"], "ufs_not-the-secret")
    unknown = await _token(client, "ufc_unknown", created["clientSecret"])
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json()["error"] == unknown.json()["error"] == "invalid_client"


async def test_scope_rules_on_creation(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org_admin_org = await factory.organisation()
    org_admin = await factory.actor(organisation=org_admin_org, org_roles=["ADMIN_ORGANISATION"])
    membre_role = await _create(client, admin, roles=["MEMBRE"], organisationIds=[str(org_admin_org.id)])
    no_org = await _create(client, admin, roles=["TRESORIER"])
    super_admin = await _create(client, admin, roles=["SUPER_ADMIN"])
    by_org_admin = await _create(client, org_admin, organisationIds=[str(org_admin_org.id)])
    assert membre_role.status_code == 400 and no_org.status_code == 400
    assert super_admin.status_code == 403 and by_org_admin.status_code == 403
    unknown_field = await _create(client, admin, organisationIds=[str(org_admin_org.id)], actif=False)
    assert unknown_field.status_code == 400
