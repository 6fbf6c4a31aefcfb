"""Admin - Utilisateurs with Keycloak configured: every call goes through the Admin REST API of a local fake."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy import select

from tests.identity.conftest import keycloak_settings
from unionflow.app import create_app
from unionflow.models import AuditLog

BASE = "/api/admin/users"


def _body(tag: str, **extra: object) -> dict[str, object]:
    return {"username": f"moussa.{tag}", "email": f"moussa.{tag}@example.ml", "firstName": "Moussa",
            "lastName": "Keita", "enabled": True, **extra}


async def test_create_parses_location_and_maps_roles(kc_client, keycloak, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    tag = uuid.uuid4().hex[:8]
    created = await kc_client.post(BASE, headers=sa.headers,
                                   json=_body(tag, password="mot-de-passe-fort", realmRoles=["TRESORIER"]))
    assert created.status_code == 200, created.text
    user = created.json()
    assert user["id"] in keycloak.users and user["username"] == f"moussa.{tag}"
    assert user["realmRoles"] == ["TRESORIER"]  # technical default role hidden
    assert keycloak.passwords[user["id"]] == "mot-de-passe-fort" and "mot-de-passe-fort" not in created.text
    assert keycloak.mappings[user["id"]] == {"TRESORIER", keycloak.default_role}
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == user["id"]))).scalar_one()
    assert entry.type_action == "CREER" and entry.severite == "WARNING"

    duplicate = await kc_client.post(BASE, headers=sa.headers, json=_body(tag))
    assert duplicate.status_code == 409


async def test_search_pages_with_first_max_and_count(kc_client, keycloak, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    tag = uuid.uuid4().hex[:8]
    for i in range(3):
        keycloak.add_user(f"aminata{i}.{tag}", email=f"aminata{i}.{tag}@example.bf")
    page = await kc_client.get(BASE, headers=sa.headers, params={"search": tag, "page": 1, "size": 2})
    assert page.status_code == 200, page.text
    data = page.json()
    assert data["totalElements"] == 3 and data["totalPages"] == 2
    assert [u["username"] for u in data["content"]] == [f"aminata2.{tag}"]
    assert data["content"][0]["createdAt"] is not None


async def test_update_roles_and_disable(kc_client, keycloak, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    user_id = keycloak.add_user(f"ibrahim.{uuid.uuid4().hex[:8]}", roles=["USER", "offline_access"],
                                firstName="Ibrahim")
    roles = await kc_client.get(f"{BASE}/{user_id}/roles", headers=sa.headers)
    assert roles.json() == ["USER"]
    replaced = await kc_client.put(f"{BASE}/{user_id}/roles", headers=sa.headers, json=["MEMBRE", "SECRETAIRE"])
    assert replaced.status_code == 200, replaced.text
    # Keycloak's own roles are left alone; only UnionFlow roles are replaced.
    assert keycloak.mappings[user_id] == {"MEMBRE", "SECRETAIRE", "offline_access", keycloak.default_role}
    unknown = await kc_client.put(f"{BASE}/{user_id}/roles", headers=sa.headers, json=["offline_access"])
    assert unknown.status_code == 400

    disabled = await kc_client.put(f"{BASE}/{user_id}", headers=sa.headers, json={"enabled": False})
    assert disabled.status_code == 200 and disabled.json()["enabled"] is False
    assert keycloak.users[user_id]["enabled"] is False and keycloak.users[user_id]["firstName"] == "Ibrahim"
    assert user_id in keycloak.logouts
    actions = [(e.type_action, e.severite) for e in (await db.execute(
        select(AuditLog).where(AuditLog.entite_id == user_id).order_by(AuditLog.date_heure))).scalars()]
    assert actions == [("MODIFIER_ROLES", "WARNING"), ("MODIFIER", "WARNING")]
    # A password set by the administrator is temporary: its owner changes it at the next sign-in.
    reset = await kc_client.put(f"{BASE}/{user_id}", headers=sa.headers, json={"password": "fixe-par-admin-1"})
    assert reset.status_code == 200, reset.text
    assert keycloak.passwords[user_id] == "fixe-par-admin-1" and keycloak.temporary[user_id] is True

    realm = await kc_client.get(f"{BASE}/roles", headers=sa.headers)
    assert "offline_access" not in [r["name"] for r in realm.json()] and len(realm.json()) == 10
    missing = await kc_client.get(f"{BASE}/{uuid.uuid4()}", headers=sa.headers)
    assert missing.status_code == 404


async def test_keycloak_errors_become_502_and_503(kc_client, keycloak, factory, settings):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    keycloak.fail_with = 500
    failing = await kc_client.get(BASE, headers=sa.headers)
    assert failing.status_code == 502 and failing.headers["content-type"].startswith("application/problem+json")
    keycloak.fail_with = None

    dead = create_app(keycloak_settings(settings, keycloak, keycloak_admin_url="http://127.0.0.1:9"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=dead), base_url="http://testserver") as http:
        response = await http.get(BASE, headers=sa.headers)
    await dead.state.engine.dispose()
    assert response.status_code == 503 and response.json()["status"] == 503


async def test_service_token_is_cached_and_renewed_on_401(kc_client, keycloak, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await kc_client.get(BASE, headers=sa.headers)).status_code == 200
    before = keycloak.hits["token"]
    assert (await kc_client.get(f"{BASE}/roles", headers=sa.headers)).status_code == 200
    assert keycloak.hits["token"] == before  # cached
    keycloak.tokens.clear()  # Keycloak restarted or revoked the session
    assert (await kc_client.get(f"{BASE}/roles", headers=sa.headers)).status_code == 200
    assert keycloak.hits["token"] == before + 1


async def test_keycloak_member_changes_password(kc_client, keycloak, db):
    user_id = keycloak.add_user(f"adama.{uuid.uuid4().hex[:8]}", password="ancien-secret-1", roles=["MEMBRE"])
    headers = {"Authorization": f"Bearer {keycloak.issue_token(user_id)}"}
    url = "/api/membres/me/mot-de-passe"
    wrong = await kc_client.put(url, headers=headers, json={"motDePasseActuel": "faux-secret-1",
                                                            "nouveauMotDePasse": "nouveau-secret-1"})
    assert wrong.status_code == 400 and wrong.json()["errors"][0]["field"] == "motDePasseActuel"
    assert keycloak.passwords[user_id] == "ancien-secret-1"

    changed = await kc_client.put(url, headers=headers, json={"motDePasseActuel": "ancien-secret-1",
                                                              "nouveauMotDePasse": "nouveau-secret-1"})
    assert changed.status_code == 204, changed.text
    assert keycloak.passwords[user_id] == "nouveau-secret-1" and user_id in keycloak.logouts
    entry = (await db.execute(select(AuditLog).where(AuditLog.entite_id == user_id))).scalar_one()
    assert entry.type_action == "CHANGER_MOT_DE_PASSE" and entry.severite == "WARNING"

    keycloak.direct_grants = False
    refused = await kc_client.put(url, headers=headers, json={"motDePasseActuel": "nouveau-secret-1",
                                                              "nouveauMotDePasse": "encore-autre-1"})
    assert refused.status_code == 502 and keycloak.passwords[user_id] == "nouveau-secret-1"


async def test_external_token_without_keycloak_admin_cannot_change_password(client, keycloak, app):
    # The main app trusts only the built-in issuer: an external token is refused outright.
    user_id = keycloak.add_user(f"sali.{uuid.uuid4().hex[:8]}", password="ancien-secret-1", roles=["MEMBRE"])
    response = await client.put("/api/membres/me/mot-de-passe",
                                headers={"Authorization": f"Bearer {keycloak.issue_token(user_id)}"},
                                json={"motDePasseActuel": "ancien-secret-1", "nouveauMotDePasse": "x" * 12})
    assert response.status_code == 401


async def test_unionflow_role_missing_from_the_realm(kc_client, keycloak, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    user_id = keycloak.add_user(f"binta.{uuid.uuid4().hex[:8]}")
    removed = keycloak.roles.pop("ORGANISATEUR_EVENEMENT")
    try:
        listed = await kc_client.get(f"{BASE}/roles", headers=sa.headers)
        assert "ORGANISATEUR_EVENEMENT" not in [r["name"] for r in listed.json()]
        refused = await kc_client.put(f"{BASE}/{user_id}/roles", headers=sa.headers,
                                      json=["ORGANISATEUR_EVENEMENT"])
        assert refused.status_code == 400 and "ORGANISATEUR_EVENEMENT" in refused.json()["detail"]
        assert keycloak.mappings[user_id] == {keycloak.default_role}
    finally:
        keycloak.roles["ORGANISATEUR_EVENEMENT"] = removed
