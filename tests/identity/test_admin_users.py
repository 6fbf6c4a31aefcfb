"""Admin - Utilisateurs on the built-in identity provider."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from unionflow.models import AuditLog, UtilisateurLocal

BASE = "/api/admin/users"


def _new_user(**extra: object) -> dict[str, object]:
    suffix = uuid.uuid4().hex[:8]
    return {"username": f"fatou.{suffix}@example.sn", "email": f"fatou.{suffix}@example.sn",
            "firstName": "Fatou", "lastName": "Ndiaye", "enabled": True, **extra}


async def _login(client, email: str, password: str):
    return await client.post("/api/auth/token", data={"grant_type": "password", "username": email,
                                                      "password": password})


async def _audit(db, user_id: str) -> list[AuditLog]:
    return list((await db.execute(select(AuditLog).where(AuditLog.entite_id == user_id)
                                  .order_by(AuditLog.date_heure))).scalars())


async def test_create_login_read_and_audit_without_leaking_hashes(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    body = _new_user(password="mot-de-passe-solide", realmRoles=["TRESORIER", "MEMBRE"])
    created = await client.post(BASE, headers=sa.headers, json=body)
    assert created.status_code == 200, created.text
    user = created.json()
    assert user["email"] == body["email"] and user["realmRoles"] == ["MEMBRE", "TRESORIER"]
    assert "password" not in created.text and "argon2" not in created.text and "passwordHash" not in user

    stored = await db.get(UtilisateurLocal, uuid.UUID(user["id"]))
    assert stored is not None and stored.password_hash and stored.password_hash.startswith("$argon2")
    login = await _login(client, str(body["email"]), "mot-de-passe-solide")
    assert login.status_code == 200, login.text

    fetched = await client.get(f"{BASE}/{user['id']}", headers=sa.headers)
    assert fetched.status_code == 200 and fetched.json()["realmRoles"] == ["MEMBRE", "TRESORIER"]
    assert "argon2" not in fetched.text

    [entry] = await _audit(db, user["id"])
    assert entry.type_action == "CREER" and entry.severite == "WARNING" and entry.module == "ADMIN_UTILISATEURS"
    assert "argon2" not in str(entry.details) and "mot-de-passe-solide" not in str(entry.details)


async def test_list_is_paged_and_searchable(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    tag = uuid.uuid4().hex[:6]
    for i in range(3):
        await factory.actor(["USER"], with_membre=False, email=f"kofi{i}.{tag}@example.ci")
    page = await client.get(BASE, headers=sa.headers, params={"search": f".{tag}@", "page": 1, "size": 2})
    assert page.status_code == 200, page.text
    data = page.json()
    assert data["totalElements"] == 3 and data["totalPages"] == 2 and data["page"] == 1 and data["last"]
    assert [u["email"] for u in data["content"]] == [f"kofi2.{tag}@example.ci"]
    assert data["content"][0]["realmRoles"] is None and "argon2" not in page.text
    bad = await client.get(BASE, headers=sa.headers, params={"size": 0})
    assert bad.status_code == 400


async def test_roles_route_is_not_captured_by_id(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    roles = await client.get(f"{BASE}/roles", headers=sa.headers)
    assert roles.status_code == 200
    names = [r["name"] for r in roles.json()]
    assert set(names) == {"SUPER_ADMIN", "ADMIN", "ADMIN_ORGANISATION", "MEMBRE", "USER", "MODERATEUR",
                          "TRESORIER", "PRESIDENT", "SECRETAIRE", "ORGANISATEUR_EVENEMENT",
                          # the extension roles (docs/authorization.md)
                          "COMMISSAIRE_AUX_COMPTES", "DELEGUE_PROTECTION_DONNEES"}


async def test_unknown_users_are_404(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    for user_id in (str(uuid.uuid4()), "not-a-uuid", "..%2F..%2Froles"):
        response = await client.get(f"{BASE}/{user_id}", headers=sa.headers)
        assert response.status_code == 404, (user_id, response.text)
    assert (await client.put(f"{BASE}/{uuid.uuid4()}", headers=sa.headers, json={"enabled": False})).status_code == 404
    assert (await client.put(f"{BASE}/{uuid.uuid4()}/roles", headers=sa.headers, json=["USER"])).status_code == 404


async def test_disable_blocks_login_and_revokes_refresh_tokens(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    body = _new_user(password="mot-de-passe-solide")
    user = (await client.post(BASE, headers=sa.headers, json=body)).json()
    tokens = (await _login(client, str(body["email"]), "mot-de-passe-solide")).json()

    disabled = await client.put(f"{BASE}/{user['id']}", headers=sa.headers, json={"enabled": False})
    assert disabled.status_code == 200 and disabled.json()["enabled"] is False
    assert disabled.json()["firstName"] == "Fatou"  # partial update keeps other fields
    assert (await _login(client, str(body["email"]), "mot-de-passe-solide")).status_code == 400
    refresh = await client.post("/api/auth/token", data={"grant_type": "refresh_token",
                                                         "refresh_token": tokens["refresh_token"]})
    assert refresh.status_code == 400
    entries = await _audit(db, user["id"])
    assert [(e.type_action, e.severite) for e in entries] == [("CREER", "INFO"), ("MODIFIER", "WARNING")]
    assert entries[1].details["avant"]["enabled"] is True and entries[1].details["apres"]["enabled"] is False


async def test_update_rules(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    other = await factory.actor(["USER"], with_membre=False)
    first = (await client.post(BASE, headers=sa.headers, json=_new_user())).json()

    renamed = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers, json={"username": "autre"})
    assert renamed.status_code == 400
    same = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers,
                            json={"username": other.user.username, "lastName": "Traoré"})
    assert same.status_code == 200 and same.json()["lastName"] == "Traoré"
    taken = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers, json={"email": first["email"]})
    assert taken.status_code == 409
    self_disable = await client.put(f"{BASE}/{sa.user.id}", headers=sa.headers, json={"enabled": False})
    assert self_disable.status_code == 409
    weak = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers, json={"password": "court"})
    assert weak.status_code == 400 and weak.json()["errors"][0]["field"] == "password"
    for field in ("enabled", "email"):
        null = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers, json={field: None})
        assert null.status_code == 400 and null.json()["errors"][0]["field"] == field


async def test_admin_password_reset_lets_user_log_in(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    other = await factory.actor(["USER"], with_membre=False)
    reset = await client.put(f"{BASE}/{other.user.id}", headers=sa.headers, json={"password": "nouveau-secret-42"})
    assert reset.status_code == 200 and "nouveau-secret-42" not in reset.text
    assert (await _login(client, other.user.email, "nouveau-secret-42")).status_code == 200


async def test_create_conflicts_and_validation(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    body = _new_user()
    assert (await client.post(BASE, headers=sa.headers, json=body)).status_code == 200
    duplicate = await client.post(BASE, headers=sa.headers, json={**body, "username": "autre.nom"})
    assert duplicate.status_code == 409
    unknown_role = await client.post(BASE, headers=sa.headers, json=_new_user(realmRoles=["ROI"]))
    assert unknown_role.status_code == 400 and "ROI" in unknown_role.json()["detail"]
    weak = await client.post(BASE, headers=sa.headers, json=_new_user(password="123"))
    assert weak.status_code == 400 and weak.json()["errors"][0]["field"] == "password"
    hashed = await client.post(BASE, headers=sa.headers, json=_new_user(passwordHash="$argon2id$x"))
    assert hashed.status_code == 400 and hashed.json()["errors"][0]["field"] == "passwordHash"


async def test_replace_roles_audits_with_warning(client, factory, db):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    other = await factory.actor(["USER", "MEMBRE"], with_membre=False)
    url = f"{BASE}/{other.user.id}/roles"
    assert (await client.get(url, headers=sa.headers)).json() == ["MEMBRE", "USER"]
    replaced = await client.put(url, headers=sa.headers, json=["TRESORIER", "MEMBRE", "TRESORIER"])
    assert replaced.status_code == 200 and replaced.json() == ["MEMBRE", "TRESORIER"]
    assert (await client.get(url, headers=sa.headers)).json() == ["MEMBRE", "TRESORIER"]
    # The new roles are in the next token the user obtains.
    await db.refresh(other.user)
    assert other.user.realm_roles == ["MEMBRE", "TRESORIER"]

    [entry] = [e for e in await _audit(db, str(other.user.id)) if e.type_action == "MODIFIER_ROLES"]
    assert entry.severite == "WARNING"
    assert entry.details == {"avant": {"realmRoles": ["MEMBRE", "USER"]},
                             "apres": {"realmRoles": ["MEMBRE", "TRESORIER"]}}

    unknown = await client.put(url, headers=sa.headers, json=["TRESORIER", "CAISSIER"])
    assert unknown.status_code == 400 and unknown.json()["errors"][0]["message"].endswith("CAISSIER")
    not_a_list = await client.put(url, headers=sa.headers, json={"roles": ["USER"]})
    assert not_a_list.status_code == 400
    own = await client.put(f"{BASE}/{sa.user.id}/roles", headers=sa.headers, json=["ADMIN"])
    assert own.status_code == 409


async def test_only_super_admin(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(BASE, headers=admin.headers)).status_code == 403
    assert (await client.get(BASE)).status_code == 401
